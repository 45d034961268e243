"""A provider client: a "model" that always answers the cooperative label (docs/extending.md)."""

from pdbench.config.provider_spec import ProviderKind, register_provider
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.providers.prompt_reading import read_labels_only


class AlwaysCooperate:
    """Answers every round with the game's cooperative label, read from the prompt."""

    def __init__(self, spec, *, project_root=None):
        self.model = spec.model

    async def acomplete(self, request: CompletionRequest) -> Completion:
        if request.response_format == "message":  # a negotiation turn
            return Completion(text="I will cooperate.")
        prompt = "\n".join([request.system, *(text for _, text in request.messages)])
        cooperate, _ = request.labels or read_labels_only(prompt).labels
        return Completion(text=cooperate)


KIND = register_provider(
    ProviderKind(
        name="always_cooperate",
        client_entry_point="always_cooperate:AlwaysCooperate",
        offline=True,  # no network, no key
        deterministic_at_temperature_0=True,  # the same prompt, the same answer
        seeded_per_match=False,
    )
)

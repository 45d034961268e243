"""Every turn game's house player and house third party has a ladder identity: its parameters are
the fields it is made with (a derived field is no parameter: counting one made `pdbench train` on
a passcode file crash at its result line)."""

from __future__ import annotations

import dataclasses

import pytest

from pdbench.config.agent_identity import policy_identity
from pdbench.games.registry import house_factories, turn_policy_games


@pytest.mark.parametrize("name", sorted(turn_policy_games()))
def test_a_house_turn_player_has_an_identity_of_its_own_parameters(name):
    identity = policy_identity(name, {}, ())
    assert len(identity.key) == 64 and identity.name == name
    fields = dataclasses.fields(house_factories(turn_policy_games()[name])[name])
    derived = {f.name for f in fields if not f.init}
    assert not derived & set(identity.fields["params"])
    # a parameter set to its default is the same agent as one left out
    defaults = {
        f.name: f.default for f in fields if f.init and f.default is not dataclasses.MISSING
    }
    assert policy_identity(name, defaults, ()).key == identity.key


def test_the_passcode_players_have_no_word_list_of_their_own():
    """They play from the public list every player is shown (issue 41): no parameter."""
    assert policy_identity("passcode_halving", {}, ()).fields["params"] == {}

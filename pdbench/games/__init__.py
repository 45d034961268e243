"""Games that are not 2x2 matrix games, as rules modules (issue 29): a state, whose turn it is,
the legal moves, each player's observation (exactly the platform's round_state), applying a move,
when the match ends and the scores, all pure functions of the state, the move and the match's
seeded dice. Their policies answer from the observation alone, in the platform's action shape,
as an arena agent or an LLM agent would."""

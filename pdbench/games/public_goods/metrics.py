"""What a researcher asks of a public goods match, per player seat and per group, from its stored
turns alone (`stored.read_rounds`; the variant's options tell E and m).

Per player:
- `shares`: its contribution each round over what it could contribute (E; under balance
  accounting its balance, None when that was 0); `mean_share`; `share_slope`, the OLS slope of
  the shares on the round number (per round); `first_share`, `last_share` and `end_game_drop`,
  the mean share of the rounds before the last minus the last round's (the end-game effect).
- `share_with_punishment`, `share_without_punishment`: its mean share in the rounds that had a
  punish phase and in those that had none (None when there were no such rounds), so a design
  switching punishment on for some rounds (`punish_rounds`, Fehr & Gaechter 2002) compares its
  two treatments within one match.
- `free_riding_share`: the share of rounds in which it contributed 0.
- `points_given`, `points_received`: punishment points that took effect (after caps), in all.
- `antisocial_share`: of the points it asked to give, the share aimed at players who
  contributed at least as much as it did that round (Herrmann, Thoeni & Gaechter 2008);
  None when it punished nobody.
- `retaliation_rate` (partners only: under strangers a player cannot tell who punished it):
  of the rounds with a punish phase in which a player that punished it last round is in its
  group, the share in which it punishes that player (pgg_bench's retaliation rate).
- `talk_consistency`: of its messages that state an amount (`talk.stated_amount`), the share
  followed by a contribution of at least that amount in the same round.
- `schedule`: its contribution schedule (`schedule.estimate_schedule`).
- `reputation_gap`, `reputation_slope` (CoopEval's reputation only): how its contribution
  follows the reputation its group was shown (`reputation_measures`).

Per group and round (`group_rounds`): the mean share and the efficiency, the group's earnings
over the most it could have earned (everyone contributing everything, nobody punishing: N E m a
round when m > 1); under balance accounting only the match's efficiency (`group_efficiency`:
the group's final wealth over the wealth of everyone contributing everything every round).
Per group over the match (`partner_groups`, partners only: other groups change every round):
its mean share each round, their slope, the first and last round's and the end-game drop, its
efficiency and the punishment points that took effect in it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

from pdbench.games.public_goods.reputation_measures import reputation_row
from pdbench.games.public_goods.schedule import ScheduleEstimate, estimate_schedule, fit
from pdbench.games.public_goods.stored import Line, StoredRound, read_rounds
from pdbench.games.public_goods.talk import stated_amount


@dataclass(frozen=True)
class PlayerMeasures:
    shares: tuple[float | None, ...]
    mean_share: float | None
    share_slope: float | None
    first_share: float | None
    last_share: float | None
    end_game_drop: float | None
    share_with_punishment: float | None
    share_without_punishment: float | None
    zero_rounds: int  # rounds it contributed 0
    rounds: int
    points_given: int
    points_received: int
    points_asked: int  # points it asked to give (before caps)
    antisocial_points: int  # ... aimed at players who contributed at least as much
    retaliation_occasions: int | None
    retaliations: int | None
    statements: int
    kept: int
    schedule: ScheduleEstimate

    @property
    def free_riding_share(self) -> float | None:
        return self.zero_rounds / self.rounds if self.rounds else None

    @property
    def antisocial_share(self) -> float | None:
        return self.antisocial_points / self.points_asked if self.points_asked else None

    @property
    def retaliation_rate(self) -> float | None:
        if not self.retaliation_occasions or self.retaliations is None:
            return None
        return self.retaliations / self.retaliation_occasions

    @property
    def talk_consistency(self) -> float | None:
        return self.kept / self.statements if self.statements else None


@dataclass(frozen=True)
class GroupRound:
    round_number: int
    seats: tuple[str, ...]
    mean_share: float | None
    efficiency: float | None  # per-round accounting only
    points: int  # punishment points that took effect in the group


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _share(played: StoredRound, seat: str) -> float | None:
    room = played.available[seat]
    return played.contributions[seat] / room if room > 0 else None


def player_measures(
    rounds: Sequence[StoredRound], options: Mapping[str, Any], seat: str
) -> PlayerMeasures:
    shares = tuple(_share(r, seat) for r in rounds)
    defined = [s for s in shares if s is not None]
    slope = fit(
        [(float(r.round_number), s) for r, s in zip(rounds, shares, strict=True) if s is not None]
    )
    before = _mean([s for s in shares[:-1] if s is not None])
    last = shares[-1] if shares else None
    drop = before - last if before is not None and last is not None and len(shares) > 1 else None
    asked = antisocial = 0
    for r in rounds:
        for target, n in r.requested.get(seat, {}).items():
            asked += n
            antisocial += n if r.contributions[target] >= r.contributions[seat] else 0
    occasions, retaliations = _retaliation(rounds, seat, options)
    statements = kept = 0
    for r in rounds:
        for speaker, text in r.messages:
            if speaker == seat and (said := stated_amount(text, r.available[seat])) is not None:
                statements += 1
                kept += r.contributions[seat] >= said
    schedule_points = [
        (_others_mean(previous, seat), float(now.contributions[seat]))
        for previous, now in pairwise(rounds)
    ]
    return PlayerMeasures(
        shares=shares,
        mean_share=_mean(defined),
        share_slope=slope.slope,
        first_share=shares[0] if shares else None,
        last_share=shares[-1] if shares else None,
        end_game_drop=drop,
        share_with_punishment=_mean(
            [s for r, s in zip(rounds, shares, strict=True) if r.punish_phase and s is not None]
        ),
        share_without_punishment=_mean(
            [s for r, s in zip(rounds, shares, strict=True) if not r.punish_phase and s is not None]
        ),
        zero_rounds=sum(r.contributions[seat] == 0 for r in rounds),
        rounds=len(rounds),
        points_given=sum(sum(r.punished.get(seat, {}).values()) for r in rounds),
        points_received=sum(g.get(seat, 0) for r in rounds for g in r.punished.values()),
        points_asked=asked,
        antisocial_points=antisocial,
        retaliation_occasions=occasions,
        retaliations=retaliations,
        statements=statements,
        kept=kept,
        schedule=estimate_schedule(schedule_points, float(options["endowment"])),
    )


def _others_mean(played: StoredRound, seat: str) -> float:
    others = [played.contributions[s] for s in played.group_of(seat) if s != seat]
    return sum(others) / len(others)


def _retaliation(
    rounds: Sequence[StoredRound], seat: str, options: Mapping[str, Any]
) -> tuple[int | None, int | None]:
    if options["matching"] != "partners":
        return None, None
    occasions = retaliations = 0
    for previous, now in pairwise(rounds):
        if not now.punish_phase:
            continue
        punishers = {p for p, given in previous.punished.items() if given.get(seat, 0) > 0}
        for punisher in punishers & set(now.group_of(seat)):
            occasions += 1
            retaliations += now.requested.get(seat, {}).get(punisher, 0) > 0
    return occasions, retaliations


def group_rounds(rounds: Sequence[StoredRound], options: Mapping[str, Any]) -> list[GroupRound]:
    per_round = options["accounting"] == "per_round"
    best = options["endowment"] * options["players"] * max(float(options["multiplier"]), 1.0)
    found = []
    for r in rounds:
        for seats in r.groups:
            shares = [s for seat in seats if (s := _share(r, seat)) is not None]
            earned = sum(r.earnings[seat] for seat in seats)
            found.append(
                GroupRound(
                    round_number=r.round_number,
                    seats=seats,
                    mean_share=_mean(shares),
                    efficiency=earned / best if per_round else None,
                    points=sum(n for seat in seats for n in r.punished.get(seat, {}).values()),
                )
            )
    return found


def group_efficiency(
    rounds: Sequence[StoredRound], options: Mapping[str, Any], seats: Sequence[str]
) -> float | None:
    """The group's earnings over the match over the most it could have earned (module
    docstring); `seats` one group (partners) or, under strangers, any set of players."""
    if not rounds:
        return None
    size, endowment = options["players"], options["endowment"]
    if options["accounting"] == "per_round":
        best = len(rounds) * endowment * len(seats) * max(float(options["multiplier"]), 1.0)
        return sum(r.earnings[s] for r in rounds for s in seats) / best
    wealth = endowment * len(seats) + sum(r.earnings[s] for r in rounds for s in seats)
    best = _best_balance(len(rounds), size, endowment, float(options["multiplier"]))
    return wealth / (best * len(seats) / size)


@dataclass(frozen=True)
class GroupSummary:
    seats: tuple[str, ...]
    shares: tuple[float | None, ...]  # the members' mean share, per round
    share_slope: float | None
    first_share: float | None
    last_share: float | None
    end_game_drop: float | None
    efficiency: float | None
    points: int


def partner_groups(rounds: Sequence[StoredRound], options: Mapping[str, Any]) -> list[GroupSummary]:
    """Each fixed group's measures over the match (module docstring); [] unless partners."""
    if options["matching"] != "partners" or not rounds:
        return []
    by_group = group_rounds(rounds, options)
    found = []
    for seats in rounds[0].groups:
        mine = [g for g in by_group if g.seats == seats]
        shares = tuple(g.mean_share for g in mine)
        slope = fit(
            [(float(g.round_number), g.mean_share) for g in mine if g.mean_share is not None]
        )
        before = _mean([s for s in shares[:-1] if s is not None])
        last = shares[-1]
        found.append(
            GroupSummary(
                seats=seats,
                shares=shares,
                share_slope=slope.slope,
                first_share=shares[0],
                last_share=last,
                end_game_drop=(before - last if before is not None and last is not None else None),
                efficiency=group_efficiency(rounds, options, seats),
                points=sum(g.points for g in mine),
            )
        )
    return found


def _best_balance(rounds: int, size: int, endowment: int, multiplier: float) -> float:
    """A group's final wealth (its balances; the account's remainder is nobody's) under balance
    accounting when everyone contributes everything every round."""
    balance, carry, rate = endowment, 0, Fraction(str(multiplier))
    for _ in range(rounds):
        pot = math.floor((carry + balance * size) * rate)
        balance, carry = divmod(pot, size)
    return float(balance * size)


def match_measures(
    lines: Sequence[Line], options: Mapping[str, Any]
) -> tuple[dict[str, PlayerMeasures], list[GroupRound]]:
    """Every player's measures and every group round's, from the stored turns."""
    rounds = read_rounds(lines, options)
    seats = sorted(rounds[0].labels, key=lambda s: (len(s), s)) if rounds else []
    return {s: player_measures(rounds, options, s) for s in seats}, group_rounds(rounds, options)


SCHEDULE_TYPES = ("conditional_cooperator", "free_rider", "hump", "other")


def match_row(lines: Sequence[Line], options: Mapping[str, Any]) -> dict[str, dict[str, object]]:
    """Per player seat, every metric row's stem and the counts its pooled ratio needs."""
    rounds = read_rounds(lines, options)
    players, groups = match_measures(lines, options)
    scores = lines[-1]["outcome"]["scores"] if lines and "outcome" in lines[-1] else {}
    rows: dict[str, dict[str, object]] = {}
    for seat, found in players.items():
        if options["accounting"] == "per_round":
            mine = [g.efficiency for g in groups if seat in g.seats and g.efficiency is not None]
            efficiency = _mean(mine)
        else:
            efficiency = group_efficiency(rounds, options, rounds[0].group_of(seat))
        kind = found.schedule.type
        rows[seat] = {
            "contribution_share": found.mean_share,
            "contribution_share_punish": found.share_with_punishment,
            "contribution_share_no_punish": found.share_without_punishment,
            "contribution_slope": found.share_slope,
            "first_round_share": found.first_share,
            "last_round_share": found.last_share,
            "end_game_drop": found.end_game_drop,
            "free_riding_share": found.free_riding_share,
            "points_given": found.points_given,
            "points_received": found.points_received,
            "antisocial_share": found.antisocial_share,
            "retaliation_rate": found.retaliation_rate,
            "talk_consistency": found.talk_consistency,
            "schedule_slope": found.schedule.slope,
            **{f"schedule_{t}": None if kind is None else float(kind == t) for t in SCHEDULE_TYPES},
            **reputation_row(rounds, options, seat),
            "efficiency": efficiency,
            "score": scores.get(seat),
            "zero_rounds": found.zero_rounds,
            "rounds": found.rounds,
            "antisocial_points": found.antisocial_points,
            "points_asked": found.points_asked,
            "retaliations": found.retaliations,
            "retaliation_occasions": found.retaliation_occasions,
            "kept": found.kept,
            "statements": found.statements,
        }
    return rows

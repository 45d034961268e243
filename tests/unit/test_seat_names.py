"""Player seats beyond "j": every game names its seats with `player_seats` ("a" .. "z", then
"za" .. "zz", "zza", ...), so sorting seat names as text keeps seat order, up to MAX_SEATS, and
whatever reads seats back from columns (a seat's measure `<stem>_<seat>`) finds all of them."""

from __future__ import annotations

import re

import pytest

from pdbench.games.base import MAX_SEATS, SEAT_PATTERN, player_seats
from pdbench.games.entry import Seats


def test_seats_continue_after_z_with_z_prefixes_and_sort_as_text():
    seats = player_seats(MAX_SEATS)
    assert seats[:10] == tuple("abcdefghij")
    assert seats[24:29] == ("y", "z", "za", "zb", "zc")
    assert seats[50:54] == ("zy", "zz", "zza", "zzb")
    assert sorted(seats) == list(seats)  # text order is seat order
    assert len(set(seats)) == MAX_SEATS
    assert all(re.fullmatch(SEAT_PATTERN, seat) for seat in seats)
    assert player_seats(28)[-1] == "zb"


def test_the_bound_is_documented_and_enforced():
    assert MAX_SEATS == 100
    with pytest.raises(ValueError, match="1 to 100"):
        player_seats(MAX_SEATS + 1)
    assert Seats(default=4, minimum=2, maximum=MAX_SEATS, option="players").maximum == 100
    with pytest.raises(ValueError, match="<= 100"):
        Seats(default=4, minimum=2, maximum=MAX_SEATS + 1, option="players")

"""A site's ``footprints`` (issue 29 item 3) are checked as its other obstacles: each key known,
an outline of 3 or more points with an area, a height > 0; errors name the file and the entry."""

import pytest

from navsense.errors import ConfigError
from navsense.site import site_from_json

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def test_a_closed_ring_is_read_as_the_open_one():
    site = site_from_json({"footprints": [{"outline_enu_m": [*SQUARE, [0, 0]], "height_m": 9}]})
    assert site.poly_xy_m.tolist() == SQUARE and site.poly_start.tolist() == [0, 4]
    assert site.poly_top_m.tolist() == [9.0] and site.names["footprints"] == ["footprint 0"]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (
            {"outline_enu_m": SQUARE, "height_m": 9, "heigth": 3},
            "footprints[0].heigth is not a known key",
        ),
        ({"outline_enu_m": SQUARE[:2], "height_m": 9}, "has 2 distinct points"),
        ({"outline_enu_m": [[0, 0], [1, 1], [2, 2]], "height_m": 9}, "has no area"),
        ({"outline_enu_m": [[0, 0], [1, "a"], [2, 0]], "height_m": 9}, "is not an array of points"),
        ({"outline_enu_m": SQUARE, "height_m": "9"}, 'height_m = "9" is not a finite number'),
        ({"outline_enu_m": SQUARE, "height_m": 0}, "height_m = 0 must be > 0"),
        ({"outline_enu_m": SQUARE}, "height_m = null is not a finite number"),
    ],
)
def test_bad_footprints_name_the_file_and_entry(entry, words):
    with pytest.raises(ConfigError) as err:
        site_from_json({"footprints": [entry]}, "street.site.json")
    assert str(err.value).startswith("street.site.json: footprints[0]") and words in str(err.value)

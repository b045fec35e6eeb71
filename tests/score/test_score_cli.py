"""navsense score on the command line: its options (names fixed by issue 22)."""

from navsense.cli import build_parser


def test_score_options_have_the_issue_names():
    args = build_parser("score").parse_args(
        [
            "score",
            "RUN",
            "EST",
            "--format",
            "csv",
            "--topic",
            "/odometry/filtered",
            "--frame",
            "utm",
            "--point",
            "antenna",
            "--align",
            "sim3",
            "--rpe-delta",
            "10",
            "--rpe-unit",
            "m",
            "--out",
            "x.json",
        ]
    )
    assert (args.command, args.run_dir, args.estimate) == ("score", "RUN", "EST")
    assert (args.format, args.topic, args.frame, args.point, args.align) == (
        "csv",
        "/odometry/filtered",
        "utm",
        "antenna",
        "sim3",
    )
    assert (args.rpe_delta, args.rpe_unit, args.out) == (10.0, "m", "x.json")

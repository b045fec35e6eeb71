"""Scoring a user's estimator against a run's truth (``navsense score``, issue 22).

A run directory knows its truth; an estimator (an EKF, robot_localization, an RTK/INS filter)
run on the run's data writes a trajectory. This package measures how wrong that trajectory is
and whether its covariance tells the truth, overall, per GNSS fix state and per outage window::

    navsense score RUN_DIR ESTIMATE [--format tum|csv|mcap] [--topic TOPIC]
                   [--frame enu|utm|geodetic] [--point ins|antenna|base_footprint]
                   [--align none|se3|sim3] [--rpe-delta D --rpe-unit m|s] [--out FILE]

One module a job, in the order the data flows (:func:`navsense.score.api.score_estimate`):

=====================  ========================================================================
``estimate``           the Estimate read from a file; the format from the extension; time base
``tum``, ``csvfile``,  the readers: TUM ``t x y z qx qy qz qw``; CSV with named columns; a topic
``bag``                of a ROS 2 bag (Odometry, PoseWithCovarianceStamped, NavSatFix)
``runinfo``            what is read from the run: episode.json, lever arms, datum chain, fix
                       states (gnss.jsonl or gnss.parquet)
``frames``             the estimate's frame (site ENU, UTM, latitude-longitude of a datum) to the
                       site's grid ENU through the run's datum chain, with attitude and covariance
``truth``              the truth at the estimate's point and stamps (interpolated on the physics
                       clock)
``align``              Umeyama SE(3) / Sim(3) alignment, as evo does
``metrics``            ATE, RPE, attitude errors, NEES and sigma fractions
``breakdown``          the groups: fix states, outage windows and the 30 s after them
``scores``             the flat figures of every group
``writer``, ``table``, score.json, the terminal table and the plots
``plots``
=====================  ========================================================================

Rulings where the issue is silent (each module's docstring has the details):

* **Truth.** The truth is the one :func:`navsense.runs.stats.find_truth` finds, as for the report and
  the campaigns: ``RUN_DIR/truth.parquet`` (``navsense simulate --save-truth``; always written
  with ``--track``), else episode.json's source: an embedded scenario (or scenario file) is
  rebuilt, a truth log is read again from its path (or relative to the run directory). A run
  with none of these (a ``--track`` run whose truth.parquet was deleted, a log that has moved)
  cannot be scored: the error names what is missing and asks for ``--save-truth``.
* **Point.** ``--point ins`` (default) scores against the run's INS point (the point of the INS
  odometry and fix that a filter fed with navsense's bag estimates); ``antenna`` the GNSS
  antenna; ``base_footprint`` the rear-axle point on the ground. Lever arms from episode.json.
* **Time.** Estimate times are episode seconds; UNIX times (a bag's stamps, a CSV's
  ``unix_time_s``, a TUM file whose first time is after 2001) have the run's start_utc
  subtracted. Stamps outside the run are not scored (``epochs_outside_truth``).
* **Frame.** ``--frame`` default: the CSV's columns; ``utm`` for a pose in frame_id ``utm``,
  ``geodetic`` for a NavSatFix; else ``enu``. UTM and geodetic coordinates are in ``--datum``
  (default the run's INS datum) and UTM in ``--utm-zone`` (default the run's). An estimate in a
  frame of its own (a filter's ``map``) needs ``--align se3``.
* **RPE.** Consecutive pairs (evo's default), D seconds or D metres of the truth's path apart
  (evo's ``pairs_from_reference``); default 1 s.
* **Groups.** The fix state at a stamp is the latest GNSS epoch's at or before it; outage windows
  are the spans without a fix and the configured correction outages; ``after_outage`` the 30 s
  after each.

Output: ``RUN_DIR/score/score.json`` (flat keys: :mod:`navsense.score.scores`; NaN as null),
``score_error.png`` and ``score_cdf.png`` beside it, and a table on the terminal.
"""

"""The swing study's population (geomotion.models._population and _population_run).

The fast tests replace ``optimise_onsets`` where a search would take seconds; the two
marked slow start real ``dask.distributed`` clusters of worker processes.
"""

import os
from types import SimpleNamespace

import numpy as np
import pytest

from geomotion import ConvergenceError, models
from geomotion.models import _population, _population_run
from geomotion.models._generators import GENERATOR_RANGES
from geomotion.models._onset_certificate import OnsetRefusal
from geomotion.models._population import COLUMNS, POPULATION_STUDY_RANGES, RESULT_COLUMNS
from geomotion.models.swing import TOP_RANGES


def _failing(message):
    """An optimise_onsets that raises ConvergenceError with this message, recording calls."""
    calls = []

    def optimise_onsets(golfer, **options):
        calls.append(options)
        raise ConvergenceError(message, residual=1.0, tolerance=1e-4, iterations=20, suggestion="")

    return optimise_onsets, calls


def _population_file(tmp_path, rows, **metadata):
    """A results file of these rows, as run_population writes it."""
    values = {key: "x" for key in _population_run._METADATA} | {"count": str(len(rows))}
    population = models.Population(rows=tuple(rows), metadata=values | metadata)
    path = tmp_path / "population.csv"
    _population_run._write(path, population)
    return path


def test_draws_are_reproducible_inside_their_ranges_and_male():
    draws = models.draw_golfers(40, rng=7)
    assert draws == models.draw_golfers(40, rng=7)
    assert draws[:5] == models.draw_golfers(5, rng=7)  # the first k of a larger draw
    assert draws != models.draw_golfers(40, rng=8)
    assert [d.index for d in draws] == list(range(40))
    for name, (low, high) in POPULATION_STUDY_RANGES.items():
        values = np.array([getattr(d, name) for d in draws])
        assert np.all((values >= low) & (values <= high)), name
        assert values.max() - values.min() > 0.5 * (high - low), name  # spread over it
        assert all(type(getattr(d, name)) is float for d in draws)
    assert POPULATION_STUDY_RANGES["height"] == (1.70, 1.90)
    assert POPULATION_STUDY_RANGES["body_mass"] == (70.0, 95.0)
    for name, limits in GENERATOR_RANGES.items():  # every generator range, as stated there
        assert POPULATION_STUDY_RANGES[name] == limits, name
    # the hub's maximum rate, drawn from a stream of its own, reaches the hub's generator
    # and leaves every other parameter as one uniform draw over the other ranges gives it
    assert draws[3].generator_options()["max_velocity"][0] == draws[3].hub_max_velocity
    others = [name for name in POPULATION_STUDY_RANGES if name != "hub_max_velocity"]
    limits = np.array([POPULATION_STUDY_RANGES[name] for name in others])
    expected = np.random.default_rng(7).uniform(limits[:, 0], limits[:, 1], size=(40, len(others)))
    drawn = np.array([[getattr(d, name) for name in others] for d in draws])
    assert np.array_equal(drawn, expected)
    golfer = draws[3].golfer()
    assert golfer.parameters["sex"] == "male"
    assert golfer.parameters["height"] == draws[3].height
    assert golfer.parameters["club"].parts["head_mass"] == draws[3].head_mass
    assert golfer.parameters["plane_inclination"] == draws[3].plane_inclination
    low, high = POPULATION_STUDY_RANGES["plane_inclination"]
    assert np.degrees([low, high]) == pytest.approx([50.0, 70.0])  # the stated range
    for name, (low, high) in TOP_RANGES.items():  # the top of the backswing, as stated
        assert POPULATION_STUDY_RANGES[f"top_{name}"] == (low, high), name
    assert draws[3].top() == {name: getattr(draws[3], f"top_{name}") for name in TOP_RANGES}
    options = draws[3].generator_options()
    assert options["peak_torque"] == (
        draws[3].hub_peak,
        draws[3].shoulder_peak,
        draws[3].wrist_peak,
    )
    assert options["max_velocity"][1:] == (draws[3].arm_max_velocity,) * 2


@pytest.mark.parametrize(
    ("message", "status"),
    [
        ("optimise_onsets on the onset grid: no swing reaching the ball", "no reaching swing"),
        ("optimise_onsets at [0.1, 0.2] s: certificate (KKT ...)", "certificate failed"),
    ],
)
def test_a_failed_search_gives_empty_results(monkeypatch, tmp_path, message, status):
    """A ConvergenceError that names no reason: its status by its message, "unclassified"."""
    failing, calls = _failing(message)
    monkeypatch.setattr(_population, "optimise_onsets", failing)
    draw = models.draw_golfers(1, rng=3)[0]
    row = models.optimise_golfer(draw)
    assert tuple(row) == COLUMNS
    assert row["status"] == status
    assert row["reason"] == "unclassified" and row["lowest_pass"] is None
    assert all(row[name] is None for name in RESULT_COLUMNS)
    # one search, with the draw's generators
    assert len(calls) == 1 and calls[0]["peak_torque"] == draw.generator_options()["peak_torque"]
    back = models.read_population(_population_file(tmp_path, [row]))
    assert back.rows == (row,)
    assert np.isnan(back.column("speed")).all()


@pytest.mark.parametrize(
    ("reason", "lowest_pass", "status"),
    [
        ("unreachable", 0.0293, "no reaching swing"),
        ("search", 0.004, "no reaching swing"),
        ("stage kink", None, "certificate failed"),
        ("crossing lost", None, "certificate failed"),
        ("request", None, "certificate failed"),
    ],
)
def test_a_refusal_records_its_reason(monkeypatch, tmp_path, reason, lowest_pass, status):
    """An OnsetRefusal's reason decides the status (whatever its message says) and lands
    in the row with its lowest pass; the file reads it back."""

    def refusing(golfer, **options):
        raise OnsetRefusal(
            "optimise_onsets: a message naming neither",
            reason=reason,
            lowest_pass=lowest_pass,
            residual=1.0,
            tolerance=1e-4,
            iterations=20,
            suggestion="",
        )

    monkeypatch.setattr(_population, "optimise_onsets", refusing)
    row = models.optimise_golfer(models.draw_golfers(1, rng=3)[0])
    assert (row["status"], row["reason"], row["lowest_pass"]) == (status, reason, lowest_pass)
    assert all(row[name] is None for name in RESULT_COLUMNS)
    back = models.read_population(_population_file(tmp_path, [row]))
    assert back.rows == (row,)
    assert np.array_equal(
        back.column("lowest_pass"), [np.nan if lowest_pass is None else lowest_pass], equal_nan=True
    )
    with pytest.raises(ValueError, match="reason: expected a key of REFUSAL_REASONS"):
        OnsetRefusal("", reason="tired", residual=1, tolerance=1, iterations=1, suggestion="")


def test_an_optimum_fills_its_columns(monkeypatch, tmp_path):
    """A stand-in optimum with a distinct value per field: each lands in its column; the
    sequence and work columns come from its (real) downswing."""
    fields = "time miss path_angle shaft_lean lead_arm_below_horizontal shaft_angular_velocity"
    impact = SimpleNamespace(**{name: 0.1 + k for k, name in enumerate(fields.split())})
    draw = models.draw_golfers(1, rng=2)[0]
    run = models.simulate_downswing(
        draw.golfer(),
        models.swing_generators([0.0, 0.02, 0.07], **draw.generator_options()),
        dt=2e-3,
    )
    optimum = SimpleNamespace(
        downswing=run,
        onset=np.array([0.0, 0.02, 0.07]),
        speed=41.0,
        impact=impact,
        wrist_onset_arm_angle=0.5,
        kkt_residual=1e-3,
        tangent_slope=0.2,
        gradient_error=2e-3,
        kink=None,
        neighbour_slopes=np.array([-0.3, -0.7]),
    )
    monkeypatch.setattr(_population, "optimise_onsets", lambda golfer, **options: optimum)
    row = models.optimise_golfer(draw)
    expected = {"status": "optimum", "shoulder_onset": 0.02, "wrist_onset": 0.07}
    expected |= {"reason": None, "lowest_pass": None}
    expected |= {"speed": 41.0, "impact_time": 0.1, "miss": 1.1, "path_angle": 2.1}
    expected |= {"shaft_lean": 3.1, "lead_arm_below_horizontal": 4.1}
    expected |= {"shaft_angular_velocity": 5.1, "wrist_onset_arm_angle": 0.5}
    expected |= {"kkt_residual": 1e-3, "tangent_slope": 0.2, "gradient_error": 2e-3}
    expected |= {"at_kink": 0.0, "steepest_neighbour_slope": -0.3}
    assert {name: row[name] for name in expected} == expected
    sequence, work = models.kinematic_sequence(run), models.positive_work(run)
    assert row["peak_club_rate"] == sequence.peak_rate[2]
    assert row["trunk_peak_lead"] == pytest.approx(sequence.impact_time - sequence.peak_time[0])
    assert row["proximal_to_distal"] == float(sequence.proximal_to_distal)
    assert row["hub_work_share"] == pytest.approx(work[0] / work.sum())
    # the fixed-onset runs at these (not optimal) onsets: two swings, two speeds
    assert 10 < row["speed_head_200"] < 60 and 10 < row["speed_head_174"] < 60
    assert row["speed_head_200"] != row["speed_head_174"]
    # ... from the drawn top of the backswing, with the radial stop at its wrist cock
    heavy = draw.golfer(head_mass=0.2)
    again = models.simulate_downswing(
        heavy,
        models.swing_generators([0.0, 0.02, 0.07], **draw.generator_options()),
        q0=heavy.top_of_backswing(
            hub_turn=draw.top_hub_turn,
            lead_arm_above_horizontal=draw.top_lead_arm_above_horizontal,
            wrist_cock=draw.top_wrist_cock,
        ),
        ball=models.ball_at_address(heavy, wrist_angle=draw.address_wrist_angle),
        dt=2e-3,
    ).impact
    assert row["speed_head_200"] == pytest.approx(float(again.speed), rel=1e-12)
    assert draw.generator_options()["top_wrist_cock"] == draw.top_wrist_cock
    assert row["miss_head_200"] == pytest.approx(float(again.miss), rel=1e-12)
    header = "index,sex,height,body_mass,upper_arm_scale,forearm_scale,hand_scale,palm_scale,"
    header += "shoulder_width_scale,trunk_scale,head_mass,shaft_mass,grip_mass,club_length,"
    header += "plane_inclination,trunk_tilt,address_wrist_angle,"
    header += (
        "hub_peak,hub_max_velocity,shoulder_peak,wrist_peak,arm_max_velocity,shape,time_constant,"
    )
    header += "ulnar_range,stop_angle,top_hub_turn,top_lead_arm_above_horizontal,"
    header += "top_wrist_cock,stop_rate,stop_damping,damping_angle,impact_band,"
    header += "status,reason,lowest_pass,shoulder_onset,wrist_onset,speed,"
    header += "impact_time,miss,path_angle,shaft_lean,lead_arm_below_horizontal,"
    header += "shaft_angular_velocity,wrist_onset_arm_angle,at_kink,steepest_neighbour_slope,"
    header += "kkt_residual,tangent_slope,gradient_error,peak_club_rate,trunk_peak_lead,"
    header += "proximal_to_distal,hub_work_share,"
    header += "speed_head_174,miss_head_174,speed_head_200,miss_head_200,wall_time"
    path = _population_file(tmp_path, [row])
    assert header in path.read_text().splitlines()
    assert models.read_population(path).rows == (row,)


def test_a_rows_parameters_rebuild_the_same_golfer(monkeypatch, tmp_path):
    monkeypatch.setattr(_population, "optimise_onsets", _failing("no swing reaching")[0])
    draws = models.draw_golfers(3, rng=11)
    back = models.read_population(
        _population_file(tmp_path, [models.optimise_golfer(d) for d in draws])
    )
    for draw in draws:
        again = back.draw(draw.index)
        assert again == draw
        a, b = draw.golfer().parameters, again.golfer().parameters
        assert a["lengths"] == b["lengths"] and a["body_mass"] == b["body_mass"]
        np.testing.assert_array_equal(a["club"].spatial_inertia, b["club"].spatial_inertia)


def test_read_population_rejects_what_run_population_never_writes(monkeypatch, tmp_path):
    monkeypatch.setattr(_population, "optimise_onsets", _failing("no swing reaching")[0])
    rows = [models.optimise_golfer(d) for d in models.draw_golfers(2, rng=5)]
    path = _population_file(tmp_path, rows)
    text = path.read_text()
    bad = {
        "metadata": text.replace("# rng:", "# seed:"),
        "columns": text.replace("shoulder_onset,wrist_onset", "wrist_onset,shoulder_onset"),
        "with results": text.replace("unclassified,,,", "unclassified,,0.1,"),
        "status": text.replace("no reaching swing", "optimum", 1),
        "no reason": text.replace("no reaching swing,unclassified", "no reaching swing,", 1),
        "a reason": text.replace("no reaching swing,unclassified", "no reaching swing,tired", 1),
        "lowest pass": text.replace(
            "no reaching swing,unclassified,", "certificate failed,unclassified,0.01", 1
        ),
        "increasing": text.replace("\n1,male", "\n0,male"),
        "rows": text.replace("# count: 2", "# count: 3"),
        "numbers": text.replace("\n1,male,1.", "\n1,male,tall"),
    }
    for problem, content in bad.items():
        assert content != text, problem
        path.write_text(content)
        with pytest.raises(ValueError, match=str(path).replace("\\", "\\\\")):
            models.read_population(path)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="count"):
        models.draw_golfers(0)
    with pytest.raises(TypeError, match="count"):
        models.draw_golfers(2.0)
    with pytest.raises(TypeError, match="draw: expected a GolferDraw"):
        models.optimise_golfer({"height": 1.8})
    with pytest.raises(ValueError, match="count"):
        models.run_population(0)
    with pytest.raises(ValueError, match="rng"):
        models.run_population(2, rng=-1)
    with pytest.raises(TypeError, match="rng"):
        models.run_population(2, rng=np.random.default_rng(1))
    with pytest.raises(TypeError, match="path"):
        models.run_population(2, path=3)
    with pytest.raises(TypeError, match="path"):
        models.read_population(None)
    population = models.Population(rows=(), metadata={})
    with pytest.raises(ValueError, match="name"):
        population.column("status")
    with pytest.raises(ValueError, match="index"):
        population.draw(4)


def test_a_client_of_another_type_is_named():
    pytest.importorskip("distributed")  # the book extra's (make floors runs without it)
    with pytest.raises(TypeError, match="client: expected"):
        models.run_population(2, client=3)


@pytest.mark.slow
def test_run_population_on_a_local_cluster_matches_optimise_golfer(tmp_path):
    """Two golfers (seed 2: both reach the ball, about 15 s) on a real
    one-worker cluster of processes, written, read back and compared with a direct call."""
    distributed = pytest.importorskip("distributed")
    path = tmp_path / "population.csv"
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert client.run(os.environ.get, "OPENBLAS_NUM_THREADS") == {
            address: "1" for address in client.nthreads()
        }
        ran = models.run_population(2, rng=2, client=client, path=path)
    back = models.read_population(path)
    assert back.metadata["count"] == "2" and back.metadata["rng"] == "2"
    assert back.metadata["workers"] == "1"
    assert back.metadata["geomotion_version"] == models._population_run.__version__
    assert back.rows == ran.rows
    for row, draw in zip(back.rows, models.draw_golfers(2, rng=2), strict=True):
        direct = models.optimise_golfer(draw)
        assert row["status"] == direct["status"] == "optimum"
        assert back.draw(row["index"]) == draw
        for name in RESULT_COLUMNS:  # None where the optimum has no such number (a kink)
            if direct[name] is None:
                assert row[name] is None, name
            else:
                assert row[name] == pytest.approx(direct[name], rel=1e-9, abs=1e-12), name
        # a certified optimum that reaches the ball, inside the onsets' bounds
        assert 20 < row["speed"] < 70 and abs(row["miss"]) <= row["impact_band"] + 1e-4
        assert 0.15 < row["impact_time"] < 0.4
        assert row["steepest_neighbour_slope"] <= 1.0
        if row["at_kink"] == 0.0:
            assert row["tangent_slope"] <= 1.0 and row["gradient_error"] <= 5e-2
        assert -0.1 <= row["shoulder_onset"] <= 0.3 and -0.1 <= row["wrist_onset"] <= 0.3
        # the row's onsets, run again on the run's clock with the drawn head, give its speed
        onset = np.array([0.0, row["shoulder_onset"], row["wrist_onset"]])
        generators = models.swing_generators(onset - onset.min(), **draw.generator_options())
        q0 = draw.golfer().top_of_backswing(**draw.top())
        ball = models.ball_at_address(draw.golfer(), wrist_angle=draw.address_wrist_angle)
        rerun = models.simulate_downswing(draw.golfer(), generators, ball=ball, q0=q0, dt=2e-3)
        rerun = rerun.impact
        assert rerun.speed == pytest.approx(row["speed"], abs=1e-9)
        # the fixed-onset runs, again one by one: the drawn golfer with each head, the
        # row's onsets kept (a trend across heads is not asserted: a few golfers buck it)
        for mass in (0.174, 0.200):
            golfer = draw.golfer(head_mass=mass)
            again = models.simulate_downswing(
                golfer,
                generators,
                ball=ball,
                q0=golfer.top_of_backswing(**draw.top()),
                dt=2e-3,
                band=draw.impact_band,
            ).impact
            name = f"head_{round(1000 * mass)}"
            assert again.speed == pytest.approx(row[f"speed_{name}"], rel=1e-9)
            assert again.miss == pytest.approx(row[f"miss_{name}"], abs=1e-9)


@pytest.mark.slow
def test_two_workers_compile_the_kernels_at_once_without_clashing(tmp_path):
    """Two worker processes, one empty numba cache: both compile and run a swing at once."""
    distributed = pytest.importorskip("distributed")

    def swing():
        golfer = models.swing_plane_golfer()
        generators = models.swing_generators(np.array([0.0, 0.03, 0.08]))
        impact = models.simulate_downswing(golfer, generators, dt=2e-3).impact
        return float(impact.speed), os.environ["NUMBA_CACHE_DIR"]

    env = {"NUMBA_CACHE_DIR": str(tmp_path), "OPENBLAS_NUM_THREADS": "1"}
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", env=env
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(2)
        results = client.run(swing)
    assert len(results) == 2
    (speed, cache), (speed_2, cache_2) = results.values()
    assert speed == speed_2 and cache == cache_2 == str(tmp_path)
    assert any(tmp_path.rglob("*.nbi"))  # the kernels were cached there

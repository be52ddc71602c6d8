"""Budget schedules as Karpenter reads them (issue 92 items 2 and 15): a schedule robfig/cron's
ParseStandard refuses fails the budget, and MustGetAllowedDisruptions then allows no disruption for
every reason of the NodePool (the pass's table, `--node` with a verified corrected schedule, lint's
error, each in Karpenter's words: the parse error as Go formats it); a budget whose windows each
reach the next firing is active at every instant and never closes (`--node`'s times, the table,
lint's `nodepool-budget-blocks-disruption`)."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.karpenter.apis.nodepool import Budget
from kexplain.karpenter.disruption.budgets import allowed_by_reason, is_active, window
from kexplain.karpenter.utils.cron import CronError, corrected, parse_standard
from tests.karpenter.test_disruption import NODEPOOLS, node, pod
from tests.karpenter.test_disruption_node import N1, assert_verified_by_hand, cli, write
from tests.support.cli_helpers import TestEnvironment

NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)        # a Thursday
MONDAY = "0 9 * * monday-friday"
PARSE = 'failed to parse int from monday: strconv.Atoi: parsing "monday": invalid syntax'
ERROR = f"invariant violated, invalid cron, {PARSE} (cron=<nil>)"


def pools(budgets: str) -> str:
    return NODEPOOLS.replace('budgets: [{nodes: "BUDGET"}]', f"budgets: {budgets}").replace("TYPES", "m5.large")


BAD = pools(f'[{{nodes: "20%"}}, {{nodes: "0", schedule: "{MONDAY}", duration: 8h, reasons: [Underutilized]}}]')
ALWAYS = pools('[{nodes: "0", schedule: "0 0 * * *", duration: 24h}]')


def empty_nodes() -> list[dict]:
    return [*node(1), *node(2)]


# -- the parser's words ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec, error", [
    (MONDAY, PARSE),
    ("0 9 * * 1-7", "end of range (7) above maximum (6): 1-7"),
    ("0 9 * * 1/-1", "negative number (-1) not allowed: -1"),
    ("0 99999999999999999999 * * *", 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing '
                                     '"99999999999999999999": value out of range'),
    ("0 9 * * 1-", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
    ("0 0 9 * * mon", "expected exactly 5 fields, found 6: [0 0 9 * * mon]"),
    ("@daily 1 2 3 4", "unrecognized descriptor: @daily 1 2 3 4"),
    ('0 9 * * "mon"', 'failed to parse int from "mon": strconv.Atoi: parsing "\\"mon\\"": invalid syntax'),
])
def test_parse_errors_are_robfig_crons_as_go_formats_them(spec, error):
    with pytest.raises(CronError) as err:
        parse_standard(f"TZ=UTC {spec}")
    assert str(err.value) == error


def test_empty_ranges_are_dropped_as_strings_fieldsfunc_drops_them():
    assert parse_standard("TZ=UTC 0,,30 9 * * *").minute == frozenset({0, 30})


def test_a_budget_that_fails_to_parse_fails_every_reason_closed():
    budgets = (Budget("20%"), Budget("0", MONDAY, "8h", ("Underutilized",)))
    assert is_active(budgets[1], NOW) == (False, ERROR)

    class Pool:                 # (what allowed_by_reason reads of a NodePool)
        name = "default"

        class spec:
            class disruption:
                pass
    Pool.spec.disruption.budgets = budgets
    assert [allowed_by_reason(Pool, NOW, 10, r) for r in ("Drifted", "Empty", "Underutilized")] == [0, 0, 0]


@pytest.mark.parametrize("spec, fixed", [(MONDAY, "0 9 * * mon-fri"), ("0 9 * * 1-7", "0 9 * * 1-6,0"),
                                         ("0 0 9 * * Thurs,friday", "0 9 * * thu,fri"), ("0 9 * * L", None)])
def test_usual_slips_are_corrected_to_a_schedule_that_parses(spec, fixed):
    assert corrected(spec) == fixed


# -- the pass, --node, lint ------------------------------------------------------------------------
def disruption(tmp_path: Path, objects: list[dict], nodepools: str, *args: str) -> tuple[int, str]:
    code, out, err = cli(*write(tmp_path, objects, pools=nodepools), *args)
    assert code in (0, 1), err
    return code, out


def test_the_pass_names_the_bad_schedule_its_error_and_a_fix_for_every_reason(tmp_path):
    _, out = disruption(tmp_path, empty_nodes(), BAD, "-o", "json")
    [entry] = json.loads(out)["budgets"]
    assert entry["allowed"] == {"Drifted": 0, "Empty": 0, "Underutilized": 0}
    [bad] = entry["invalidBudgets"]
    assert bad == {"index": 1, "schedule": MONDAY, "error": ERROR, "fix": "0 9 * * mon-fri",
                   "allowsWithFix": {"Drifted": 1, "Empty": 1, "Underutilized": 0}}
    assert entry["log"] == {"message": "detected disruption budget errors",
                            "error": f"invalid disruption budgets in nodepool default, {ERROR}"}
    _, text = disruption(tmp_path, empty_nodes(), BAD)
    flat = " ".join(text.split())
    assert 'budgets[1] schedule "0 9 * * monday-friday" does not parse: no disruption for any reason' in flat
    assert f'Karpenter cannot parse it ("{ERROR}"), so it allows no disruption for any reason' in flat
    assert 'fix: schedule "0 9 * * mon-fri"' in flat
    assert "roundup(20" not in flat                 # not the other budgets' arithmetic beside "allowed 0"


def test_node_names_the_bad_schedule_and_the_corrected_one_verified(tmp_path):
    objects = empty_nodes()
    code, out = disruption(tmp_path, objects, BAD, "--node", N1, "-o", "json")
    assert code == 1
    answer = json.loads(out)["node"]
    budget = next(c for c in answer["checks"] if c["check"] == "budget")
    assert budget["step"] == "Emptiness" and budget["detail"]["invalidBudgets"][0]["error"] == ERROR
    [fix] = answer["fixes"]
    assert fix["kind"] == "budget-schedule" and fix["change"] == [
        {"object": {"kind": "NodePool", "name": "default"}, "op": "replace",
         "path": "/spec/disruption/budgets/1/schedule", "value": "0 9 * * mon-fri"}]
    assert fix["verified"]["acts"]
    assert_verified_by_hand(tmp_path, objects, {**fix, "change": []}, N1, pools=BAD.replace(MONDAY, "0 9 * * mon-fri"))
    _, text = disruption(tmp_path, objects, BAD, "--node", N1)
    assert 'Karpenter cannot parse it ("invariant violated, invalid cron' in " ".join(text.split())


def lint(path: Path) -> tuple[int, list[dict]]:
    env = TestEnvironment(width=200)
    code = main(["lint", str(path), "-o", "json"], env=env)
    assert code in (0, 1), env.err
    return code, json.loads(env.out)["findings"]


def test_lint_says_the_bad_schedule_as_an_error_in_karpenters_words(tmp_path):
    path = tmp_path / "pools.yaml"
    path.write_text(BAD)
    code, findings = lint(path)
    [found] = [f for f in findings if f["rule"] == "nodepool-budget-invalid-schedule"]
    assert code == 1 and found["severity"] == "error" and found["field"] == "spec.disruption.budgets[1].schedule"
    assert ERROR in found["message"] and "for any reason (Drifted, Empty, Underutilized)" in found["message"]
    assert "an empty node is never removed" in found["message"]
    assert found["details"]["schedule"] == "0 9 * * mon-fri"
    path.write_text(BAD.replace(MONDAY, "0 9 * * mon-fri"))
    assert not [f for f in lint(path)[1] if f["rule"] == "nodepool-budget-invalid-schedule"]


# -- windows that never close -----------------------------------------------------------------------
def _brute_end(budget: Budget, now: datetime) -> datetime | None:
    """The first whole minute from `now` at which IsActive says no (two days ahead at most)."""
    t = now.replace(second=0, microsecond=0)
    for k in range(60 * 24 * 2 + 1):
        at = t + timedelta(minutes=k)
        if at >= now and not is_active(budget, at)[0]:
            return at
    return None


@pytest.mark.parametrize("spec, duration", [("0 0 * * *", "24h"), ("0 0 * * *", "25h"), ("0 */6 * * *", "6h"),
                                            ("0 9,13 * * *", "5h"), ("0 9 * * mon-fri", "8h"),
                                            ("*/15 9-17 * * *", "15m"), ("*/15 9-17 * * *", "14m"),
                                            ("0 9 * * mon-fri", "72h")])
def test_a_window_ends_where_isactive_first_says_no(spec, duration):
    budget = Budget("0", spec, duration)
    for hours in (0, 7, 11, 21, 60):
        now = NOW - timedelta(hours=hours, minutes=7)
        change, at = window(budget, now)
        if not is_active(budget, now)[0]:
            assert change == "opens" and not is_active(budget, at - timedelta(seconds=1))[0] and is_active(budget, at)[0]
            continue
        want = _brute_end(budget, now)
        assert (change, at) == (("closes", want) if want is not None else ("always", None)), (spec, duration, now)


def test_an_always_active_budget_never_closes_in_nodes_times(tmp_path):
    objects = [*node(1), *node(2), pod("web-0", 1, cpu="200m"), pod("web-1", 2, cpu="200m")]
    _, out = disruption(tmp_path, objects, ALWAYS, "--node", N1, "-o", "json")
    when = json.loads(out)["node"]["when"]
    assert not [w for w in when if w["text"].endswith("closes")]
    assert {"what": "budget", "at": "never", "text": "budgets[0] (nodes 0, '0 0 * * *' for 24h) never closes: active "
            "at every instant, each window reaching the schedule's next firing"} in when
    _, out = disruption(tmp_path, objects, ALWAYS, "-o", "json")
    assert json.loads(out)["budgets"][0]["reasons"]["Empty"]["budgets"][0]["alwaysActive"] is True
    assert window(Budget("0", "0 0 * * *", "8h"), NOW) == ("opens", datetime(2026, 1, 2, tzinfo=timezone.utc))


def test_lint_says_an_always_active_zero_budget_blocks_forever(tmp_path):
    path = tmp_path / "pools.yaml"
    path.write_text(ALWAYS)
    [found] = [f for f in lint(path)[1] if f["rule"] == "nodepool-budget-blocks-disruption"]
    assert "'0 0 * * *' for 24h: each window reaches the next firing" in found["message"]
    path.write_text(ALWAYS.replace("24h", "23h"))
    assert not [f for f in lint(path)[1] if f["rule"] == "nodepool-budget-blocks-disruption"]

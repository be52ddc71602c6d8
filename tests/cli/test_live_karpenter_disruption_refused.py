"""`kexplain karpenter --disruption` on a live cluster whose Karpenter objects cannot be read
(issue 92, item 1): NodeClaims or NodePools refused (403), or karpenter.sh served at v1beta1
only. The pass is not run: exit 2 with the refused reads and the rule that grants them, as a
refused PodDisruptionBudget list ends it; text, -o json and --node agree; no invented
"NodePool not found" nor "node isn't managed by karpenter"."""
from __future__ import annotations

import pytest

from kexplain.load.live import APIS_PATH
from tests.cli.test_live_karpenter_disruption import EVERY_KIND, NOW, api  # noqa: F401 - the fixture
from tests.support.live_server import Rbac, run_cli

EMPTY = "ip-10-0-3-17.ec2.internal"      # the empty node Karpenter deletes now (Emptiness)
FORMS = ((), ("-o", "json"), ("--node", EMPTY), ("--node", EMPTY, "-o", "json"))


def refused(capsys, api, *args: str) -> str:
    """Every form of the command: exit 2, nothing on stdout, one line of error, the same one."""
    said = set()
    for form in FORMS:
        code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "--kubeconfig", api.kubeconfig,
                                 *form, *args)
        assert (code, out) == (2, ""), (form, out, err)
        assert err.count("\n") == 1 and err.startswith("error: "), err
        assert "not found" not in err and "isn't managed" not in err
        said.add(err.strip())
    (line,) = said
    return line


def rule(plurals: str, group: str = "karpenter.sh") -> str:
    return f'a ClusterRole: {{apiGroups: ["{group}"], resources: [{plurals}], verbs: [get, list]}}'


def test_a_refused_pdb_list_ends_the_pass_naming_its_rule(capsys, api):
    """The mechanism Karpenter's reads now share: the read, the API server's words, the rule."""
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"poddisruptionbudgets"})
    line = refused(capsys, api)
    assert line.startswith('error: forbidden (403): kexplain needs "list" on resource "poddisruptionbudgets" in '
                           'API group "policy" at the cluster scope (the API server said: ')
    assert line.endswith(f"; grant the read-only ClusterRole of deploy/rbac.yaml ({rule('poddisruptionbudgets', 'policy')})")


@pytest.mark.parametrize("plural", ["nodeclaims", "nodepools", "ec2nodeclasses"])
def test_a_refused_karpenter_read_ends_the_pass_as_a_refused_pdb_list(capsys, api, plural):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {plural})
    line = refused(capsys, api)
    group = "karpenter.k8s.aws" if plural == "ec2nodeclasses" else "karpenter.sh"
    assert line == (f'error: forbidden (403): kexplain needs "list" on resource "{plural}" in API group "{group}" at '
                    f'the cluster scope (the API server said: {plural}.{group} is forbidden: User "alice@example.com" '
                    f'cannot list resource "{plural}" in API group "{group}" at the cluster scope); grant the '
                    f"read-only ClusterRole of deploy/rbac.yaml ({rule(plural, group)})")
    assert not [s for s in api.requests if s.path == "/api/v1/events"]    # ended before the events are read


def test_nodepools_and_nodeclaims_refused_are_named_in_one_error_with_one_rule(capsys, api):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"nodepools", "nodeclaims"})
    line = refused(capsys, api)
    assert '"list" on resource "nodepools" in API group "karpenter.sh"' in line
    assert '"list" on resource "nodeclaims" in API group "karpenter.sh"' in line
    assert line.endswith(f"({rule('nodepools, nodeclaims')})")


def _v1beta1_only(api) -> None:
    for path in [p for p in api.collections if p.startswith("/apis/karpenter.sh/v1/")]:
        api.collections[path.replace("/v1/", "/v1beta1/")] = api.collections.pop(path)


def test_karpenter_served_at_v1beta1_only_ends_the_pass(capsys, api):
    _v1beta1_only(api)
    line = refused(capsys, api)
    assert line == (f'error: the API server at {api.url} (context "prod") does not serve nodepools and nodeclaims '
                    "(karpenter.sh/v1, 404): karpenter.sh is served at v1beta1 only (Karpenter before v1.0); "
                    "kexplain reads karpenter.sh/v1")


def test_without_the_group_list_a_404_for_v1_ends_the_pass(capsys, api):
    _v1beta1_only(api)
    api.faults.forbidden[APIS_PATH] = "forbidden-list-csinodes.json"
    line = refused(capsys, api)
    assert line.endswith("does not serve nodepools and nodeclaims (karpenter.sh/v1, 404): karpenter.sh is not "
                         "served at v1: is Karpenter v1 installed?")
    assert "/apis/karpenter.sh/v1/nodeclaims" in api.paths()       # asked, 404


def test_other_refused_reads_are_said_once_and_the_pass_answers(capsys, api):
    """The events and the DaemonSets are not Karpenter's own objects: said, and the pass runs."""
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"events", "daemonsets"})
    code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    assert out.startswith(f"Karpenter would start Emptiness (Empty): delete: [{EMPTY}]")
    assert err.count("Not read (RBAC refused, 403)") == 1 and "list events" in err

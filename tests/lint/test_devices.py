"""Lint's DRA checks (kexplain.lint.devices): missing DeviceClasses, ResourceClaims and
ResourceClaimTemplates, selectors that do not compile — each at the line of its field — and the
batch's verdict for a GPU workload on a pool whose devices are all taken."""
from __future__ import annotations

from pathlib import Path

from kexplain.explain.inputs import load_pool
from kexplain.lint.devices import (MISSING_CLAIM, MISSING_CLASS, MISSING_TEMPLATE, SELECTOR, DeviceProblem,
                                   check_devices)
from kexplain.lint.documents import field_path, line_of_field, read_documents, unwrap
from kexplain.lint.linter import LintOptions, lint

V1 = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"

POOL = f"""\
apiVersion: v1
kind: Node
metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1}}}}
status: {{capacity: {{cpu: "8", memory: 16Gi, pods: "110"}}}}
---
apiVersion: {V1}
kind: DeviceClass
metadata: {{name: gpu}}
spec:
  selectors:
  - cel: {{expression: "device.driver == '{DRIVER}'"}}
---
apiVersion: {V1}
kind: ResourceSlice
metadata: {{name: n1-gpu}}
spec:
  driver: {DRIVER}
  nodeName: n1
  pool: {{name: n1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
  - name: gpu-1
---
apiVersion: {V1}
kind: ResourceClaimTemplate
metadata: {{name: pool-tpl-bad, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: big
        exactly: {{deviceClassName: gone}}
"""

APP = f"""\
apiVersion: {V1}
kind: ResourceClaimTemplate
metadata: {{name: tpl, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: missing.example.com
      - name: pick
        firstAvailable:
        - name: one
          deviceClassName: gpu
        - name: two
          deviceClassName: also-missing
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: train}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: t}}}}
  template:
    metadata: {{labels: {{app: t}}}}
    spec:
      containers: [{{name: c, image: x}}]
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: tpl
      - name: other
        resourceClaimName: nope
      - name: t2
        resourceClaimTemplateName: nope-tpl
      - name: t3
        resourceClaimTemplateName: pool-tpl-bad
"""

BAD_SELECTORS = f"""\
apiVersion: {V1}
kind: DeviceClass
metadata: {{name: bad}}
spec:
  selectors:
  - cel: {{expression: "device.driver == '{DRIVER}'"}}
  - cel:
      expression: "device.driver =="
---
apiVersion: {V1}
kind: ResourceClaim
metadata: {{name: c, namespace: default}}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: gpu
        selectors:
        - cel:
            expression: "device.attributes['{DRIVER}'].model = 'x'"
"""


def docs_of(text: str, path: str = "app.yaml"):
    docs, err = read_documents(text, path)
    assert err is None
    return [item for d in docs for item in unwrap(d)]


def cluster(tmp_path: Path, text: str = POOL):
    (tmp_path / "pool.yaml").write_text(text)
    return load_pool((str(tmp_path / "pool.yaml"),)).snapshot


def by_rule(problems: list[DeviceProblem]) -> dict[str, list[tuple[int | None, str | None, str]]]:
    out: dict[str, list[tuple[int | None, str | None, str]]] = {}
    for p in problems:
        out.setdefault(p.rule, []).append((p.location.line, p.field, p.message))
    return out


def test_field_paths_and_their_lines():
    [doc] = docs_of(BAD_SELECTORS.split("---")[0])
    assert field_path("spec.selectors[1].cel.expression") == ["spec", "selectors", 1, "cel", "expression"]
    assert line_of_field(doc.node, "spec.selectors[1].cel.expression") == 8
    assert line_of_field(doc.node, "spec.selectors[7].cel") == 5      # deepest part found: the list
    assert line_of_field(None, "spec") is None and line_of_field(doc.node, None) is None


def test_missing_classes_claims_and_templates_at_their_lines(tmp_path):
    found = by_rule(check_devices(docs_of(APP), cluster(tmp_path)))
    assert found[MISSING_CLASS] == [
        (10, "spec.spec.devices.requests[0].exactly.deviceClassName",
         "device class missing.example.com does not exist in the pool or the file: every pod using this claim is "
         "unschedulable (request gpu: device class missing.example.com does not exist)"),
        (16, "spec.spec.devices.requests[1].firstAvailable[1].deviceClassName",
         "device class also-missing does not exist in the pool or the file: every pod using this claim is "
         "unschedulable (request pick/two: device class also-missing does not exist)"),
        # the pool's template is not the file's: the workload that names it gets the finding
        (36, "spec.template.spec.resourceClaims[3].resourceClaimTemplateName",
         "ResourceClaimTemplate default/pool-tpl-bad names device class gone, which does not exist in the pool "
         "or the file: the pod is unschedulable (request big: device class gone does not exist)"),
    ]
    [(line, field, text)] = found[MISSING_CLAIM]
    assert (line, field) == (32, "spec.template.spec.resourceClaims[1].resourceClaimName")
    assert text.startswith("ResourceClaim default/nope (claim 'other') does not exist in the pool or the file")
    assert 'could not find ResourceClaim "default/nope"' in text
    [(line, field, text)] = found[MISSING_TEMPLATE]
    assert (line, field) == (34, "spec.template.spec.resourceClaims[2].resourceClaimTemplateName")
    assert "ResourceClaim not created yet" in text
    assert SELECTOR not in found


def test_without_a_pool_only_selectors_are_checked():
    assert check_devices(docs_of(APP), None) == []
    found = by_rule(check_devices(docs_of(BAD_SELECTORS), None))
    [(line1, field1, text1), (line2, field2, text2)] = found[SELECTOR]
    assert (line1, field1) == (8, "spec.selectors[1].cel.expression")
    assert text1.startswith('DeviceClass.resource.k8s.io "bad" is invalid: spec.selectors[1].cel.expression: '
                            'Invalid value: "device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error')
    assert (line2, field2) == (21, "spec.devices.requests[0].exactly.selectors[0].cel.expression")
    assert text2.startswith('ResourceClaim.resource.k8s.io "c" is invalid: ') and "compilation failed" in text2


def test_documents_refused_by_admission_are_not_reported_twice():
    docs = docs_of(BAD_SELECTORS)
    refused = {(docs[0].location.path, docs[0].location.doc, None)}
    assert [p.obj["kind"] for p in check_devices(docs, None, refused)] == ["ResourceClaim"]


def test_objects_of_the_file_count_as_existing(tmp_path):
    text = APP.replace("deviceClassName: missing.example.com", "deviceClassName: gpu") \
        .replace("deviceClassName: also-missing", "deviceClassName: gpu")
    text += f"""---
apiVersion: {V1}
kind: ResourceClaim
metadata: {{name: nope}}
spec:
  devices:
    requests:
    - name: r
      exactly: {{deviceClassName: gpu}}
"""
    found = by_rule(check_devices(docs_of(text), cluster(tmp_path)))
    assert set(found) == {MISSING_CLASS, MISSING_TEMPLATE}       # pool-tpl-bad's class, nope-tpl
    assert [f for _, f, _ in found[MISSING_CLASS]] == ["spec.template.spec.resourceClaims[3].resourceClaimTemplateName"]


def test_gpu_workload_on_a_pool_without_free_devices_is_unschedulable(tmp_path):
    taken = f"""---
apiVersion: {V1}
kind: ResourceClaim
metadata: {{name: held, namespace: default}}
spec:
  devices:
    requests:
    - name: r
      exactly: {{deviceClassName: gpu, count: 2}}
status:
  allocation:
    devices:
      results:
      - {{request: r, driver: {DRIVER}, pool: n1, device: gpu-0}}
      - {{request: r, driver: {DRIVER}, pool: n1, device: gpu-1}}
"""
    (tmp_path / "pool.yaml").write_text(POOL + taken)
    app = f"""\
apiVersion: {V1}
kind: ResourceClaimTemplate
metadata: {{name: one, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {{deviceClassName: gpu}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: train}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: t}}}}
  template:
    metadata: {{labels: {{app: t}}}}
    spec:
      containers: [{{name: c, image: x}}]
      resourceClaims:
      - {{name: gpu, resourceClaimTemplateName: one}}
"""
    (tmp_path / "app.yaml").write_text(app)
    report = lint(LintOptions(paths=(str(tmp_path / "app.yaml"),), node_paths=(str(tmp_path / "pool.yaml"),)))
    [finding] = [f for f in report.findings if f.obj is not None and f.obj.kind == "Deployment"]
    assert finding.rule == "unschedulable"
    assert "0/1 nodes are available: 1 cannot allocate all claims." in finding.message
    assert check_devices(docs_of(app), cluster(tmp_path, POOL + taken)) == []   # nothing wrong with the manifest


def test_problem_rules_are_described():
    from kexplain.lint.rules import RULES, devices
    assert [r.id for r in devices.RULES] == [SELECTOR, MISSING_CLASS, MISSING_CLAIM, MISSING_TEMPLATE]
    assert all(RULES[r.id] is r and r.summary for r in devices.RULES)      # registered, described


def test_lint_reports_the_device_findings_at_their_lines(tmp_path):
    (tmp_path / "pool.yaml").write_text(POOL)
    (tmp_path / "app.yaml").write_text(APP)
    report = lint(LintOptions((str(tmp_path / "app.yaml"),), (str(tmp_path / "pool.yaml"),)))
    found = {(f.rule, f.location.line) for f in report.findings if f.rule in (MISSING_CLASS, MISSING_CLAIM,
                                                                           MISSING_TEMPLATE)}
    assert found == {(MISSING_CLASS, 10), (MISSING_CLASS, 16), (MISSING_CLASS, 36), (MISSING_CLAIM, 32),
                     (MISSING_TEMPLATE, 34)}


def test_lint_without_a_pool_reports_selectors_that_do_not_compile(tmp_path):
    (tmp_path / "bad.yaml").write_text(BAD_SELECTORS)
    report = lint(LintOptions((str(tmp_path / "bad.yaml"),)))
    assert [(f.rule, f.location.line) for f in report.findings if f.rule == SELECTOR] == [(SELECTOR, 8), (SELECTOR, 21)]


V1BETA1_APP = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: tpl-beta, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: missing.example.com
      - name: pick
        firstAvailable:
        - name: one
          deviceClassName: also-missing
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c-beta, namespace: default}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: gpu
      selectors:
      - cel:
          expression: "device.driver =="
"""


def test_v1beta1_requests_are_checked_where_they_are_written(tmp_path):
    """A v1beta1 request carries its class and selectors itself: the missing class is reported at
    the line written, the selector in the API server's words (it validates v1's `exactly`)."""
    found = by_rule(check_devices(docs_of(V1BETA1_APP), cluster(tmp_path)))
    assert [(line, field) for line, field, _ in found[MISSING_CLASS]] == [
        (9, "spec.spec.devices.requests[0].deviceClassName"),
        (13, "spec.spec.devices.requests[1].firstAvailable[0].deviceClassName")]
    assert "request gpu: device class missing.example.com does not exist" in found[MISSING_CLASS][0][2]
    [(line, field, text)] = found[SELECTOR]
    assert (line, field) == (25, "spec.devices.requests[0].exactly.selectors[0].cel.expression")
    assert text.startswith('ResourceClaim.resource.k8s.io "c-beta" is invalid: '
                           'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: '
                           '"device.driver ==": compilation failed')

"""What is made of an object read is made once per object (kueue/apis/once.py): the same object
and source give the same result without running again; another object (a changed copy), another
source, or a call that raised run it again."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from kexplain.errors import InputError, Source
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.controller.jobs import job

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": "ml", "uid": "u"},
       "spec": {"parallelism": 2, "template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [{"name": "c", "image": "x"}]}}}}


def _counting() -> tuple[list[Any], Any]:
    calls: list[Any] = []

    @by_identity
    def made(obj: Any, source: Any) -> tuple[Any, Any]:
        calls.append(obj)
        if obj.get("bad"):
            raise InputError("bad", source=source)
        return (obj.get("v"), source)
    return calls, made


@pytest.mark.parametrize(("second", "runs"), [
    ("same", 1), ("copy", 2), ("other-source", 2),
])
def test_made_once_per_object_and_source(second, runs) -> None:
    calls, made = _counting()
    obj = {"v": 1}
    first = made(obj, Source("a.yaml", 1))
    again = {"same": (obj, Source("a.yaml", 1)), "copy": (dict(obj), Source("a.yaml", 1)),
             "other-source": (obj, Source("b.yaml", 1))}[second]
    assert made(*again) == (1, again[1])
    assert len(calls) == runs and (made(*again) is first) is (runs == 1)


def test_what_raises_is_not_remembered() -> None:
    calls, made = _counting()
    obj = {"bad": True}
    for _ in range(2):
        with pytest.raises(InputError):
            made(obj, None)
    assert len(calls) == 2


def test_a_job_read_again_is_the_same_job_and_a_changed_copy_is_read_anew() -> None:
    obj = copy.deepcopy(JOB)
    first = job.from_object(obj, Source("w.yaml", 1))
    assert job.from_object(obj, Source("w.yaml", 1)) is first
    changed = copy.deepcopy(obj)
    changed["spec"]["parallelism"] = 3
    assert job.from_object(changed, Source("w.yaml", 1)).parallelism == 3 and first.parallelism == 2

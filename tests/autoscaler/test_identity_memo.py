"""`identity_memo.remembered`: made once per living object, never for another that took its id, bounded."""
from kexplain.autoscaler.identity_memo import remembered


def test_made_once_per_object_and_bounded() -> None:
    made: list[str] = []

    def make(text: str) -> str:
        made.append(text)
        return text.upper()

    cache: dict = {}
    key = object()
    assert remembered(cache, key, 2, make, "a") == "A"
    assert remembered(cache, key, 2, make, "a") == "A"
    assert made == ["a"]
    others = [object(), object()]
    for other in others:
        remembered(cache, other, 2, make, "b")
    assert len(cache) <= 2          # cleared when full
    assert made == ["a", "b", "b"]


def test_an_entry_of_another_object_with_the_same_id_is_not_taken() -> None:
    key = object()
    cache: dict = {id(key): (object(), "stale")}
    assert remembered(cache, key, 8, str.upper, "x") == "X"

"""Predicates: what each built-in lets through, and how they combine."""

from __future__ import annotations

from typing import Any

from kubeforge.controller import (
    And,
    AnnotationsChanged,
    GenerationChanged,
    LabelsChanged,
    LabelSelectorPredicate,
    Not,
    ObjectPredicate,
    Or,
    PredicateFuncs,
    ResourceVersionChanged,
)
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import ConfigMap


def cm(rv: str = "1", generation: int | None = 1, **meta: Any) -> ConfigMap:
    return ConfigMap(
        metadata=ObjectMeta(
            name="a", namespace="ns", resource_version=rv, generation=generation, **meta
        )
    )


def verdicts(predicate: Any, old: Any, new: Any) -> tuple[bool, bool, bool]:
    return predicate.create(new), predicate.update(old, new), predicate.delete(old)


def test_resource_version_changed_drops_resyncs_only():
    assert verdicts(ResourceVersionChanged(), cm("1"), cm("1")) == (True, False, True)
    assert ResourceVersionChanged().update(cm("1"), cm("2"))


def test_generation_changed_ignores_metadata_only_updates():
    relabelled = cm("2", labels={"x": "y"})
    assert verdicts(GenerationChanged(), cm("1"), relabelled) == (True, False, True)
    assert GenerationChanged().update(cm("1"), cm("2", generation=2))


def test_labels_and_annotations_changed_compare_their_maps():
    plain, labelled, annotated = cm(), cm("2", labels={"a": "1"}), cm("2", annotations={"n": "x"})
    assert LabelsChanged().update(plain, labelled)
    assert not LabelsChanged().update(plain, annotated)
    assert AnnotationsChanged().update(plain, annotated)
    assert not AnnotationsChanged().update(plain, labelled)
    assert not LabelsChanged().update(labelled, cm("3", labels={"a": "1"}))


def test_a_label_selector_predicate_tests_the_new_object_on_updates():
    web = cm(labels={"app": "web"})
    db = cm(labels={"app": "db"})
    pred = LabelSelectorPredicate("app=web")
    assert verdicts(pred, db, web) == (True, True, False)
    assert verdicts(pred, web, db) == (False, False, True)


def test_object_predicate_and_funcs_default_to_letting_events_through():
    named_a = ObjectPredicate(lambda o: o.metadata.name == "a")
    assert verdicts(named_a, cm(), cm()) == (True, True, True)
    only_updates = PredicateFuncs(create_fn=lambda o: False, delete_fn=lambda o: False)
    assert verdicts(only_updates, cm(), cm()) == (False, True, False)
    assert verdicts(PredicateFuncs(), cm(), cm()) == (True, True, True)


def test_and_or_not_combine_any_predicates():
    spec_or_labels = Or(GenerationChanged(), LabelsChanged())
    assert spec_or_labels.update(cm(), cm("2", labels={"x": "1"}))
    assert spec_or_labels.update(cm(), cm("2", generation=2))
    assert not spec_or_labels.update(cm(), cm("2", annotations={"x": "1"}))
    both = And(ResourceVersionChanged(), LabelSelectorPredicate("app=web"))
    assert both.update(cm("1"), cm("2", labels={"app": "web"}))
    assert not both.update(cm("1"), cm("1", labels={"app": "web"}))
    assert Not(ResourceVersionChanged()).update(cm("1"), cm("1"))
    assert not Not(ResourceVersionChanged()).create(cm())


def test_builtin_predicates_compose_with_operators():
    pred = (GenerationChanged() | LabelsChanged()) & ~AnnotationsChanged()
    assert pred.update(cm(), cm("2", labels={"x": "1"}))
    assert not pred.update(cm(), cm("2", labels={"x": "1"}, annotations={"y": "2"}))
    assert isinstance(pred, And)

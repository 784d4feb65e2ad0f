"""Rubrics: import and edit criteria; once marks exist, changes need a new version."""

from .specs import (
    CriterionSpec,
    RubricChange,
    RubricEffectChanged,
    rubric_change_preview,
    rubric_current,
    rubric_replace,
    rubric_specs,
    rubrics_effect_digest,
    rubrics_export,
    rubrics_import,
    rubrics_preview,
    rubrics_read,
)

__all__ = [
    "CriterionSpec",
    "RubricChange",
    "RubricEffectChanged",
    "rubric_change_preview",
    "rubric_current",
    "rubric_replace",
    "rubric_specs",
    "rubrics_effect_digest",
    "rubrics_export",
    "rubrics_import",
    "rubrics_preview",
    "rubrics_read",
]

"""Library API: the whole pipeline for callers such as installer-service.

The command line is a thin layer over these functions: it parses flags, calls one of
them and prints what it returns. They raise :mod:`renderer.errors` exceptions (with
structured remedies: argument, value, hint) and never print. Render, advise,
explain-context, images and plan take one :class:`Request`, built and validated once.
One module per verb: :mod:`~renderer.api.render`, :mod:`~renderer.api.advise`,
:mod:`~renderer.api.plan`, :mod:`~renderer.api.explain`, :mod:`~renderer.api.template`,
:mod:`~renderer.api.versions`, :mod:`~renderer.api.importer`,
:mod:`~renderer.api.images`, :mod:`~renderer.api.check`, :mod:`~renderer.api.validate`,
:mod:`~renderer.api.schema`;
what they return is in :mod:`~renderer.api.results`.
"""

from __future__ import annotations

from renderer.api.advise import advise
from renderer.api.check import (
    capability,
    check,
    check_options,
    default_golden,
    default_jobs,
    rules,
)
from renderer.api.explain import explain_context
from renderer.api.images import (
    DEFAULT_PLATFORMS,
    check_registry,
    lock_text,
    prepull_images,
    read_lock,
    version_image_uses,
    write_lock,
)
from renderer.api.importer import import_version
from renderer.api.plan import plan
from renderer.api.render import (
    file_contexts,
    param_warnings,
    plan_route,
    render,
    scale_findings,
    set_render_timeout,
)
from renderer.api.request import (
    KubeVersions,
    Request,
    check_nodes,
    check_operation,
    cluster_args,
    kube_versions,
)
from renderer.api.results import (
    ExplainResult,
    Imported,
    PlanResult,
    RenderResult,
    TyphaResult,
    Validation,
    VersionEntry,
    VersionsResult,
)
from renderer.api.schema import schema, schema_names
from renderer.api.template import template, typha
from renderer.api.validate import schema_check, validate
from renderer.api.versions import versions
from renderer.manifests.tree import resolve_version

__all__ = [
    "DEFAULT_PLATFORMS",
    "ExplainResult",
    "Imported",
    "KubeVersions",
    "PlanResult",
    "RenderResult",
    "Request",
    "TyphaResult",
    "Validation",
    "VersionEntry",
    "VersionsResult",
    "advise",
    "capability",
    "check",
    "check_nodes",
    "check_operation",
    "check_options",
    "check_registry",
    "cluster_args",
    "default_golden",
    "default_jobs",
    "explain_context",
    "file_contexts",
    "import_version",
    "kube_versions",
    "lock_text",
    "param_warnings",
    "plan",
    "plan_route",
    "prepull_images",
    "read_lock",
    "render",
    "resolve_version",
    "rules",
    "scale_findings",
    "schema",
    "schema_check",
    "schema_names",
    "set_render_timeout",
    "template",
    "typha",
    "validate",
    "version_image_uses",
    "versions",
    "write_lock",
]

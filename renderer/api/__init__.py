"""Library API: the whole pipeline for callers such as installer-service.

The command line is a thin layer over these functions: it parses flags, calls one of
them and prints what it returns. They raise :mod:`renderer.errors` exceptions (with
structured remedies: argument, value, hint) and never print. Render, advise,
explain-context, images and plan take one :class:`Request`, built and validated once;
what the verbs return is in :mod:`renderer.api.results`.

One module per verb, in :mod:`renderer.api.verbs` (``render``, ``addons``, ``advise``,
``plan``, ``explain``, ``template``, ``versions``, ``importer``, ``images``, ``check``,
``validate``, ``schema``). Each name below is imported from its verb's module when first
used (a module ``__getattr__``): a verb loads what it needs and not every other verb's
modules (the gate's stages and process pool, the OCI client, the plan model, the
importer), so a render starts without them. A type checker sees plain imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from renderer.api.listed import AddonRender, ListedImages, ListedRender
    from renderer.api.request import (
        KubeVersions,
        Request,
        check_nodes,
        check_operation,
        cluster_args,
        default_config,
        kube_versions,
    )
    from renderer.api.results import (
        AddonImages,
        AddonResult,
        ExplainResult,
        Imported,
        ListedAddon,
        RenderResult,
        TyphaResult,
        Validation,
        VersionEntry,
        VersionsResult,
    )
    from renderer.api.verbs.addons import (
        addon_images,
        listed_addons,
        listed_images,
        render_addon,
        render_listed,
    )
    from renderer.api.verbs.advise import advise
    from renderer.api.verbs.check import (
        capability,
        check,
        check_options,
        default_golden,
        default_jobs,
        rules,
    )
    from renderer.api.verbs.crds import tree_crds
    from renderer.api.verbs.explain import explain_context
    from renderer.api.verbs.images import (
        DEFAULT_PLATFORMS,
        check_registry,
        listed_image_uses,
        lock_text,
        prepull_images,
        read_lock,
        version_image_uses,
        write_lock,
    )
    from renderer.api.verbs.importer import import_version
    from renderer.api.verbs.plan import PlanResult, plan
    from renderer.api.verbs.render import (
        file_contexts,
        param_warnings,
        plan_route,
        render,
        set_render_timeout,
    )
    from renderer.api.verbs.scale import scale_findings
    from renderer.api.verbs.schema import schema, schema_names
    from renderer.api.verbs.template import template, typha
    from renderer.api.verbs.validate import schema_check, validate
    from renderer.api.verbs.versions import versions
    from renderer.manifests.tree import resolve_version

#: Public name -> the module that defines it.
_WHERE = {
    "addon_images": "renderer.api.verbs.addons",
    "listed_addons": "renderer.api.verbs.addons",
    "listed_images": "renderer.api.verbs.addons",
    "listed_image_uses": "renderer.api.verbs.images",
    "render_addon": "renderer.api.verbs.addons",
    "render_listed": "renderer.api.verbs.addons",
    "tree_crds": "renderer.api.verbs.crds",
    "advise": "renderer.api.verbs.advise",
    "capability": "renderer.api.verbs.check",
    "check": "renderer.api.verbs.check",
    "check_options": "renderer.api.verbs.check",
    "default_golden": "renderer.api.verbs.check",
    "default_jobs": "renderer.api.verbs.check",
    "rules": "renderer.api.verbs.check",
    "explain_context": "renderer.api.verbs.explain",
    "DEFAULT_PLATFORMS": "renderer.api.verbs.images",
    "check_registry": "renderer.api.verbs.images",
    "lock_text": "renderer.api.verbs.images",
    "prepull_images": "renderer.api.verbs.images",
    "read_lock": "renderer.api.verbs.images",
    "version_image_uses": "renderer.api.verbs.images",
    "write_lock": "renderer.api.verbs.images",
    "import_version": "renderer.api.verbs.importer",
    "plan": "renderer.api.verbs.plan",
    "file_contexts": "renderer.api.verbs.render",
    "param_warnings": "renderer.api.verbs.render",
    "plan_route": "renderer.api.verbs.render",
    "render": "renderer.api.verbs.render",
    "scale_findings": "renderer.api.verbs.scale",
    "set_render_timeout": "renderer.api.verbs.render",
    "KubeVersions": "renderer.api.request",
    "Request": "renderer.api.request",
    "check_nodes": "renderer.api.request",
    "check_operation": "renderer.api.request",
    "cluster_args": "renderer.api.request",
    "default_config": "renderer.api.request",
    "kube_versions": "renderer.api.request",
    "AddonImages": "renderer.api.results",
    "AddonRender": "renderer.api.listed",
    "ListedRender": "renderer.api.listed",
    "AddonResult": "renderer.api.results",
    "ExplainResult": "renderer.api.results",
    "ListedAddon": "renderer.api.results",
    "ListedImages": "renderer.api.listed",
    "Imported": "renderer.api.results",
    "PlanResult": "renderer.api.verbs.plan",
    "RenderResult": "renderer.api.results",
    "TyphaResult": "renderer.api.results",
    "Validation": "renderer.api.results",
    "VersionEntry": "renderer.api.results",
    "VersionsResult": "renderer.api.results",
    "schema": "renderer.api.verbs.schema",
    "schema_names": "renderer.api.verbs.schema",
    "template": "renderer.api.verbs.template",
    "typha": "renderer.api.verbs.template",
    "schema_check": "renderer.api.verbs.validate",
    "validate": "renderer.api.verbs.validate",
    "versions": "renderer.api.verbs.versions",
    "resolve_version": "renderer.manifests.tree",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found once: the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "DEFAULT_PLATFORMS",
    "AddonImages",
    "AddonRender",
    "AddonResult",
    "ExplainResult",
    "Imported",
    "KubeVersions",
    "ListedAddon",
    "ListedImages",
    "ListedRender",
    "PlanResult",
    "RenderResult",
    "Request",
    "TyphaResult",
    "Validation",
    "VersionEntry",
    "VersionsResult",
    "addon_images",
    "advise",
    "capability",
    "check",
    "check_nodes",
    "check_operation",
    "check_options",
    "check_registry",
    "cluster_args",
    "default_config",
    "default_golden",
    "default_jobs",
    "explain_context",
    "file_contexts",
    "import_version",
    "kube_versions",
    "listed_addons",
    "listed_image_uses",
    "listed_images",
    "lock_text",
    "param_warnings",
    "plan",
    "plan_route",
    "prepull_images",
    "read_lock",
    "render",
    "render_addon",
    "render_listed",
    "resolve_version",
    "rules",
    "scale_findings",
    "schema",
    "schema_check",
    "schema_names",
    "set_render_timeout",
    "template",
    "tree_crds",
    "typha",
    "validate",
    "version_image_uses",
    "versions",
    "write_lock",
]

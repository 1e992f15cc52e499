"""Scale advice: the limits of a large Calico cluster, from the cluster's own numbers.

The Typha policy follows the node count, but the pod address pool, its IPAM blocks, the
BGP mesh and the components' resource requests stay silent until production breaks.
Each number is a :class:`~renderer.calico.scale.facts.Fact`, a value with where it came
from (a flag, the config, the rendered objects, a default, the policy, seed 003), so
every finding can name the numbers it used and their origin.

``tables`` holds seed 003's tables and the limits the rules compare with (each cites its
section), ``facts`` the numbers and their origins, ``pools`` the address and IPAM block
arithmetic, ``registry`` registers the rules as the release rules are registered,
``rules`` the rules (plain functions of facts), ``extraction`` reads the
facts from a version's rendered objects, ``origins`` says where a request's values came
from, and ``report`` is what ``advise`` returns. Nothing here touches files.
"""

from renderer.calico.scale.extraction import extract
from renderer.calico.scale.facts import (
    CALICO_DEFAULT,
    CONFIG,
    CONTROLLER_DEFAULT,
    FLAG,
    KUBERNETES_DEFAULT,
    POLICY,
    RENDERED,
    SEED,
    SOURCES,
    Fact,
    Pool,
    Requests,
    ScaleInputs,
)
from renderer.calico.scale.origins import Origins, request_inputs
from renderer.calico.scale.registry import (
    REGISTRY,
    STAGE,
    Advice,
    ScaleDetails,
    advise,
    pool_rule,
    rule,
)
from renderer.calico.scale.report import AdviceReport
from renderer.calico.scale.rules import RULES

__all__ = [
    "CALICO_DEFAULT",
    "CONFIG",
    "CONTROLLER_DEFAULT",
    "FLAG",
    "KUBERNETES_DEFAULT",
    "POLICY",
    "REGISTRY",
    "RENDERED",
    "RULES",
    "SEED",
    "SOURCES",
    "STAGE",
    "Advice",
    "AdviceReport",
    "Fact",
    "Origins",
    "Pool",
    "Requests",
    "ScaleDetails",
    "ScaleInputs",
    "advise",
    "extract",
    "pool_rule",
    "request_inputs",
    "rule",
]

"""Floorline for Python agents: receipts for every compression pass, the collapse guard run
locally exactly as the reference, and delivery in the background that never raises into the agent."""

from ._version import __version__
from .client import Chain, Floorline
from .results import Breach, FloorResult, PassResult, Policy, Retrieval, default_policy, default_strategy
from .report import DeliveryError, DeliveryReport, ReceiptsLost
from .guard import CONSERVATIVE_DEFAULT_POLICY, CompressionPolicy, Manifest, evaluate_pass
from ._measure import measure
from .canaries import Canary, CanaryCheck, check_canaries, plant_canaries
from .traces import BindingConclusion, CompressedResidual, MissingVerificationReceipt, compress_trace

__all__ = [
    "__version__",
    "Breach",
    "BindingConclusion",
    "Canary",
    "CanaryCheck",
    "Chain",
    "CompressedResidual",
    "CompressionPolicy",
    "CONSERVATIVE_DEFAULT_POLICY",
    "DeliveryError",
    "DeliveryReport",
    "Floorline",
    "FloorResult",
    "Manifest",
    "MissingVerificationReceipt",
    "PassResult",
    "Policy",
    "ReceiptsLost",
    "Retrieval",
    "check_canaries",
    "compress_trace",
    "default_policy",
    "default_strategy",
    "evaluate_pass",
    "measure",
    "plant_canaries",
]

"""The bank's topics: the word people type and the title cards show."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from bot.kernel.echo import echo

TOPICS: dict[str, str] = {
    "tensors": "Tensors and dtypes",
    "storage-views": "Storage, strides and views",
    "autograd": "Autograd",
    "modules": "nn.Module and layers",
    "convolution": "Convolution, pooling, padding and stride",
    "recurrent": "Recurrent nets and LSTM",
    "activations-losses": "Activations and losses",
    "optimizers": "Optimizers and learning-rate schedules",
    "training": "The training loop and regularization",
    "data-loading": "Datasets, DataLoader and transforms",
    "performance": "Mixed precision and performance",
    "distributed": "Distributed training",
    "deployment": "Deployment and compression",
    "foundations": "Foundations of deep learning",
    "attention": "Attention and transformers",
    "initialization": "Initialization and numerical stability",
    "torch-func": "torch.func: vmap, grad and functional calls",
    "profiling-memory": "Profiling and memory",
    "checkpointing": "Checkpointing and state_dict practice",
    "sharding": "DTensor, FSDP2 and tensor parallelism",
    "compile": "torch.compile: graph breaks, guards and recompiles",
    "export": "torch.export and AOTInductor packaging",
    "hooks": "Module and tensor hooks",
    "extending": "Extending PyTorch: custom ops, autograd functions and gradient checks",
    "quantization": "Quantization with torchao and PT2E",
    "numerics": "Numerics: precision, promotion and broadcasting",
}


def known_topics(given: object = None, room: int = 150) -> str:
    """What an unknown topic's error line says: the closest known topic, then the known ones (sorted, cut to
    `room` characters so a problem line stays short)."""
    close = difflib.get_close_matches(given, list(TOPICS), n=1) if isinstance(given, str) else []
    hint = f"did you mean {close[0]}? " if close else ""
    listed = ", ".join(sorted(TOPICS))
    if len(listed) > room:
        listed = listed[: listed.rfind(", ", 0, room)] + f", ... ({len(TOPICS)} in all)"
    return f"{hint}known: {listed}"


def not_a_topic(said: str, known: Iterable[str], where: str = "here", listing: str = "topics: {}.") -> str:
    """The error for a topic nobody has: what was typed, the closest of `known` when one is close (a typo such as
    autgrad), then all of them (sorted) as `listing` words them."""
    names = sorted(set(known))
    close = difflib.get_close_matches(said.lower(), names, n=1, cutoff=0.7)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"'{echo(said)}' is not a topic {where}{hint}; {listing.format(', '.join(names))}"

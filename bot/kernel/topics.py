"""The bank's topics: the word people type and the title cards show."""

from __future__ import annotations

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

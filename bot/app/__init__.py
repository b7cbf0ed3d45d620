"""The process around the core: the CLI (composition root), settings, the scheduler tick, health."""

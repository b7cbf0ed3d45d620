"""The in-memory fake of the Store, one part per feature (a mixin over the shared tables in `tables`),
composed into `InMemoryStore` by tests/support/memory_store.py."""

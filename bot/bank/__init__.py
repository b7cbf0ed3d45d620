"""The question bank: loading and the schema (load), running verify blocks (verify)."""

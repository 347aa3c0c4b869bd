"""Score system annotations against gold ones with the MEDDOCAN measures::

    python -m deid_crf.evaluate GOLD_DIR SYSTEM_DIR      # or: deid-crf evaluate …

The scorer itself is :mod:`deid_crf.scoring.meddocan`.
"""

from deid_crf.scoring.meddocan import main

if __name__ == "__main__":
    raise SystemExit(main())

"""The Clausewise lab: the benchmarks (``clausewise eval ...``), the evaluation gate, the
training pipelines (``clausewise train ...``) and the evaluation data they read.

It lives beside the product, in the same repository, and is installed on its own
(``pip install -e ./lab``; ``make setup-test`` does): the product never imports it (an import
contract checks), so a lawyer's installation holds none of it. Its commands join the product's
command line through the ``clausewise.commands`` entry points.
"""

from pathlib import Path

#: The repository the lab is installed from (``pip install -e ./lab``): its examples and the
#: product's sources are what several benchmarks read and start.
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

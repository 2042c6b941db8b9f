"""Run Python scripts with webarray in a browser: ``python -m webarray.browser run SCRIPT.py``.

The runner builds what the page needs (the JS library with vite, the webarray wheel),
serves it with cross-origin isolation on 127.0.0.1, opens headless Chromium through a
small Node script (playwright-core), runs the script in Pyodide in a Web Worker with
webarray on the chosen backend, streams its output and exits with its status. It works
from a checkout of the repository after ``scripts/setup.sh``.
"""

from .runner import EXIT_BROWSER, EXIT_TIMEOUT, run

__all__ = ["run", "EXIT_BROWSER", "EXIT_TIMEOUT"]

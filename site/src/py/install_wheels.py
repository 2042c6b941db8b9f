# Installs the pure wheels the Chainer page wrote into /tmp/wheels (site/src/chainer.ts):
# a pure wheel needs only unzipping into site-packages, and this Pyodide has no micropip.
# Evaluates to the names installed.
import importlib
import pathlib
import site
import zipfile

_site_target = site.getsitepackages()[0]
_site_installed = []
for _site_whl in sorted(pathlib.Path("/tmp/wheels").glob("*.whl")):
    with zipfile.ZipFile(_site_whl) as _site_zip:
        _site_zip.extractall(_site_target)
    _site_installed.append(_site_whl.name)
importlib.invalidate_caches()
_site_installed

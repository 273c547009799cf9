"""What a page of the course site loads in the reader's browser besides the theme: MathJax (the math), and
the widget manager with RequireJS (the widgets). Bundled into the site from pinned npm packages, so the built
site is whole offline: no page loads anything from a CDN. The site's own scripts for them (docs/site/static/)
are copied beside the bundle.

    python -m autograder.site.assets     # or: make site, which runs it; a no-op when the bundle is current

Each package is fetched with `npm pack` (the tarball alone, none of its dependencies: the files taken are
built bundles), checked against the integrity pinned here, and the files the site needs are unpacked into
.site/assets/vendor/<folder>/ (git-ignored). docs/site/_config.yml names that folder as a static path, so
Sphinx copies it to _static/vendor/ and the pages load MathJax and the widget scripts from there.
_static/vendor/bundle.json records what was bundled (package, version, integrity); a rebuild fetches again
only when a pin here changes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from autograder import paths

ASSETS = paths.ROOT / ".site" / "assets"     # a static path of the book: its contents land in _static/
VENDOR = ASSETS / "vendor"
MANIFEST = VENDOR / "bundle.json"
OWN = paths.ROOT / "docs" / "site" / "static"   # the site's own scripts, copied beside vendor/ on every build


@dataclass(frozen=True)
class Bundle:
    package: str          # npm name
    version: str          # exact
    integrity: str        # the registry's dist.integrity of that version (sha512 of the tarball)
    folder: str           # under _static/vendor/
    take: tuple[str, ...]   # paths inside the package (a trailing / takes a folder's whole tree)
    leave: tuple[str, ...] = ()   # paths under those to leave out
    strip: str = ""       # a folder prefix dropped on unpacking (the package's root of what the page loads)
    license: str = ""


BUNDLES = (
    # MathJax 3, the version Sphinx's mathjax extension loads from a CDN by default (mathjax@3, es5/). One
    # combined component, tex-mml-chtml.js, and every file it may load later: TeX extensions (autoload),
    # the CHTML fonts, and what its menu offers (the SVG renderer, accessibility, speech).
    Bundle("mathjax", "3.2.2",
           "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
           folder="mathjax",
           take=("LICENSE", "es5/tex-mml-chtml.js", "es5/core.js", "es5/loader.js", "es5/startup.js",
                 "es5/input/", "es5/output/", "es5/a11y/", "es5/ui/", "es5/sre/"),
           strip="es5/", license="Apache-2.0"),
    # The widget manager for pages with widgets (ipywidgets 8.1.9's: @jupyter-widgets/controls 5, base 6,
    # output 6), AMD build, with the fonts its CSS loads from beside it (webpack's public path is the
    # script's own folder). It bundles base, controls and output, so no widget code is fetched either.
    Bundle("@jupyter-widgets/html-manager", "1.0.15",
           "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
           folder="html-manager",
           take=("dist/",),
           leave=("dist/embed.js", "dist/embed.js.map", "dist/embed.js.LICENSE.txt", "dist/libembed-amd.js"),
           strip="dist/", license="BSD-3-Clause"),
    # The AMD loader the widget manager needs.
    Bundle("requirejs", "2.3.8",
           "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
           folder="requirejs",
           take=("require.js",),
           license="MIT"),
)


def manifest(bundles=BUNDLES) -> str:
    return json.dumps([asdict(b) for b in bundles], indent=1) + "\n"


def is_current(vendor: Path = VENDOR, bundles=BUNDLES) -> bool:
    stamp = vendor / MANIFEST.name
    return stamp.is_file() and stamp.read_text() == manifest(bundles)


def integrity(tarball: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()


def npm_pack(package: str, version: str, into: Path) -> Path:
    """The package's tarball from the npm registry (npm's own client and cache)."""
    npm = shutil.which("npm")
    if not npm:
        raise SystemExit("npm is missing: `bash tools/install-npm.sh` installs it (make site runs it)")
    run = subprocess.run([npm, "pack", "--silent", "--pack-destination", str(into), f"{package}@{version}"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"npm pack {package}@{version} failed:\n{run.stderr.strip()}")
    return into / run.stdout.strip().splitlines()[-1]


def _under(path: str, entry: str) -> bool:
    return path == entry or (entry.endswith("/") and path.startswith(entry))


def unpack(tarball: Path, bundle: Bundle, into: Path) -> list[str]:
    """The bundle's files from the tarball (members under package/), into `into`; returns their paths there."""
    names = []
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            path = PurePosixPath(member.name)
            if not member.isfile() or path.parts[0] != "package" or ".." in path.parts:
                continue
            name = PurePosixPath(*path.parts[1:]).as_posix()
            if not any(_under(name, t) for t in bundle.take) or any(_under(name, l) for l in bundle.leave):
                continue
            target = into / name.removeprefix(bundle.strip)
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as source, open(target, "wb") as out:
                shutil.copyfileobj(source, out)
            names.append(name)
    missing = [t for t in bundle.take if not any(_under(n, t) for n in names)]
    if missing:
        raise SystemExit(f"{bundle.package}@{bundle.version} has no {missing}")
    return [n.removeprefix(bundle.strip) for n in names]


def copy_own(own: Path = OWN, assets: Path = ASSETS) -> None:
    """docs/site/static/'s files into the static path, beside vendor/ (anything else there removed)."""
    assets.mkdir(parents=True, exist_ok=True)
    for old in assets.iterdir():
        if old.name != VENDOR.name and not (own / old.name).exists():
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    for path in sorted(own.iterdir()):
        (shutil.copytree(path, assets / path.name, dirs_exist_ok=True) if path.is_dir()
         else shutil.copy2(path, assets / path.name))


def install(vendor: Path = VENDOR, bundles=BUNDLES, say=print) -> Path:
    """Fetch, check and unpack every bundle into vendor/ (replaced whole), unless it is current already."""
    if vendor == VENDOR:
        copy_own()
    if is_current(vendor, bundles):
        return vendor
    with tempfile.TemporaryDirectory(prefix="site-assets-") as tmp:
        tmp = Path(tmp)
        staged = tmp / "vendor"
        for bundle in bundles:
            tarball = npm_pack(bundle.package, bundle.version, tmp)
            got = integrity(tarball)
            if got != bundle.integrity:
                raise SystemExit(f"{bundle.package}@{bundle.version}: the registry's tarball has integrity {got}, "
                                 f"not the pinned {bundle.integrity}")
            files = unpack(tarball, bundle, staged / bundle.folder)
            say(f"  {bundle.package}@{bundle.version}: {len(files)} files into _static/vendor/{bundle.folder}/")
        (staged / MANIFEST.name).write_text(manifest(bundles))
        if vendor.exists():
            shutil.rmtree(vendor)
        vendor.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), str(vendor))
    return vendor


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.site.assets", description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    print(f"site assets current: {VENDOR}" if is_current() else f"bundling the site's assets into {VENDOR}")
    install()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The course site: Jupyter Book build and its pinned, bundled scripts."""

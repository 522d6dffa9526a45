"""Command-line interface: thin layers over the public API (parse -> API -> render)."""

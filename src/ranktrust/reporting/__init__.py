"""Reports: text (rich), Markdown, JSON (versioned) and HTML."""

"""The Premium AI photo editor (/editor): sliders, AI edits, versions, save and download."""

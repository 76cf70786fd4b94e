"""AI photo edits: the documents' presets (``presets``), the free-edit allowance and the
one edit call every page makes (``service.edit_photo``), the editor's sliders applied on
the server (``adjustments``), the controls the three editing pages share
(``components``), and the engines behind them (``engines/``: offline image processing
that follows the person and the face, or an image-edit provider over HTTP)."""

"""The analytics pages (organizers only), one module per analysis; each view reads a
selector's page and renders it, with no ORM here. `common` holds what they all do alike:
the SVG answer, the CSV/XLSX export and the CSV upload."""

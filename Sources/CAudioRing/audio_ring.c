// Placeholder; the shared-memory ring helpers live here.

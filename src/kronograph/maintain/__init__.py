"""Maintenance: retraction now; forget, communities, sagas and reconcile later."""

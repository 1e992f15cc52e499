"""Release rules about Calico objects (Typha, images); registered on import."""

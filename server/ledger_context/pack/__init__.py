"""The context pack: selecting and ordering the groups, the byte budget and its cut
(spec §4–6), settings, the build every surface reads, and serving a document."""

"""The data model: the kinds table (spec §4), documents, their fields, data classes and the
ceiling (§7), problems and the error hierarchy. Imports nothing else of the package."""

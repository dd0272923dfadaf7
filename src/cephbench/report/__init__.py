"""Tables and reports built from stored runs. Builders are pure; renderers format."""

"""fio as a tool: its job files (jobfile.py), how cephbench runs them (command.py, chain.py,
steps.py, capture.py), and pure parsers of what it prints (parse.py, text.py, logs/).

Kept empty on purpose: importing one part (the job file model, say, for ``--help``) must not
import the others."""

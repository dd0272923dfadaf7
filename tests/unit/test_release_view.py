"""The directories a release lab makes in its cached root for the lab directory's mount point:
only those the root lacks, none for a lab under a tree the view shares (/tmp), removed
innermost first and only while empty (a directory something else holds is left)."""

from __future__ import annotations

from pathlib import Path

from cephbench.lab import release_view


def test_only_the_missing_directories_are_made_and_removed_if_empty(tmp_path: Path):
    root = tmp_path / "root"
    (root / "root").mkdir(parents=True)
    made = release_view.made_in_root(root, Path("/root/labs/one"))
    assert made == [root / "root" / "labs", root / "root" / "labs" / "one"]
    assert release_view.made_in_root(root, Path("/tmp/pytest/lab")) == []
    for d in made:
        d.mkdir()
    (root / "root" / "keep").mkdir()
    release_view.remove_made([str(d) for d in made])
    assert not (root / "root" / "labs").exists() and (root / "root" / "keep").is_dir()


def test_a_root_that_lacks_the_whole_path_gets_each_level():
    made = release_view.made_in_root(Path("/nonexistent-root"), Path("/srv/lab"))
    assert [str(p) for p in made] == ["/nonexistent-root/srv", "/nonexistent-root/srv/lab"]

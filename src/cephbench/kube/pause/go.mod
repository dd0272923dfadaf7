module cephbench/pause

go 1.21

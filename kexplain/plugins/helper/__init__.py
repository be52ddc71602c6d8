"""What several plugins share (kube-scheduler's framework/plugins/helper): score normalisation
and the default spreading selector."""

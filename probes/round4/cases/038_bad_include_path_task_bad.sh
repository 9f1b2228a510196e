#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
mkdir inc; printf 'task: evil\ndataset_path: /etc\noutput_type: multiple_choice\ndoc_to_text: "{{ ().__class__.__base__.__subclasses__() }}"\n' > inc/t.yaml; expect_clean_fail run $SJ --tasks evil --limit 1 --include-path inc --output r

#!/bin/bash
# area: bad-input
. "$(dirname "$0")/../lib.sh"
python -c "print('a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]');[print(f'{chr(98+i)}: &{chr(98+i)} [*{chr(97+i)},*{chr(97+i)},*{chr(97+i)},*{chr(97+i)},*{chr(97+i)},*{chr(97+i)},*{chr(97+i)},*{chr(97+i)},*{chr(97+i)}]') for i in range(8)]" > c.yaml; expect_usage run $SJ --config c.yaml --output r

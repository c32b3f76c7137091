module actors/bench/peers/go_echo

go 1.19

module actors/bench/peers/go_bench

go 1.19

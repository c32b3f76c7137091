%% SPDX-License-Identifier: MIT
%% The Erlang side of tests/dist-node.sh: an erl node that talks to the
%% actors node tests/dist_node (its "echo" process). Prints a line per
%% check, "ok ..." or "FAIL ...", and "done PASSED FAILED" at the end.
%%
%%   dist-node.escript checks SNAME COOKIE CNODE
%%       every term type by name and by pid, both ways; a send by name
%%       from the actors node; a 64 MiB binary
%%   dist-node.escript tester SNAME COOKIE TICKTIME
%%       registers "tester", prints "ready OSPID", then each message it
%%       gets
%%   dist-node.escript watch SNAME COOKIE CNODE TICKTIME
%%       links to and monitors a process there, prints "up", then
%%       "nodedown" when the node goes, and the EXIT's and the DOWN's
%%       reasons
%%   dist-node.escript links SNAME COOKIE CNODE
%%       links and monitors both ways, each exit reason; a link to a
%%       dead process; an unlink; monitors by name of ours
%%   dist-node.escript linked SNAME COOKIE CNODE TICKTIME
%%       a process a watcher there links to and monitors; prints
%%       "linked OSPID" and waits
%%   dist-node.escript swarm SNAME COOKIE CNODE N M
%%       N processes here, N there: M messages each from either side to
%%       random ones of the other, both sides at once, every one
%%       answered to its sender
%%   dist-node.escript connect SNAME COOKIE CNODE
%%       prints "connect=true" or "connect=false"
-mode(compile).

main(["checks", Name, Cookie, CNode]) ->
    start(Name, Cookie),
    C = list_to_atom(CNode),
    true = net_kernel:connect_node(C),
    {echo, C} ! {1, <<"pid">>},
    Pid = receive {pid, P} -> P after 20000 -> exit(no_pid) end,
    io:format("ok the echo's pid ~p on ~p~n", [Pid, node(Pid)]),
    R = [check(T, Via) || T <- terms(), Via <- [{echo, C}, Pid]],
    register(tester, self()),
    {echo, C} ! {2, <<"name", (atom_to_binary(node()))/binary>>},
    R2 = receive
             {3, <<"hi">>} -> io:format("ok a send by name from there~n"), ok
         after 20000 -> io:format("FAIL no send by name from there~n"), fail
         end,
    %% pair order (DESIGN.md I7) across the nodes: 2,000 messages to
    %% the echo and back, each in the order sent
    [Pid ! {8, <<N:32>>} || N <- lists:seq(1, 2000)],
    R4 = in_order(1, 2000),
    Big = {9, binary:copy(<<"0123456789abcdef">>, 4 bsl 20)},
    Pid ! Big,
    R3 = receive
             Big -> io:format("ok a 64 MiB binary there and back~n"), ok
         after 120000 -> io:format("FAIL no 64 MiB binary back~n"), fail
         end,
    All = [R2, R3, R4 | R],
    io:format("done ~p ~p~n", [length([x || ok <- All]),
                                length([x || fail <- All])]),
    halt();
main(["links", Name, Cookie, CNode]) ->
    start(Name, Cookie),
    C = list_to_atom(CNode),
    true = net_kernel:connect_node(C),
    process_flag(trap_exit, true),
    register(tester, self()),
    %% we link to and monitor processes there: each exit reason
    R1 = [c_exit(C, Code, Expect)
          || {Code, Expect} <- [{0, normal}, {-4, shutdown}, {42, 42},
                                {-5, mailbox_limit}, {kill, killed}]],
    %% processes there link to and monitor ours: each exit reason
    R2 = [e_exit(C, Why, Expect)
          || {Why, Expect} <- [{normal, "normal"}, {shutdown, "shutdown"},
                               {kill, "kill"}, {boom, "term"},
                               {{shutdown, x}, "term"}, {7, "7"},
                               {noproc, "noproc"}]],
    %% a link to a process there that is gone: noproc
    R3 = dead_link(C),
    %% an unlink from here: no exit comes
    R4 = unlinked(C),
    %% monitors by name of ours: DOWN with the reason, noproc for none
    R5 = by_name(C),
    %% 5,000 monitors of one process there, half of them taken back
    R6 = many_monitors(C, 5000),
    All = R1 ++ R2 ++ [R3, R4, R5, R6],
    io:format("done ~p ~p~n", [length([x || ok <- All]),
                                length([x || fail <- All])]),
    halt();
main(["swarm", Name, Cookie, CNode, NStr, MStr]) ->
    %% N processes here and N there; each of either side sends M
    %% messages to random ones of the other side, both sides at once,
    %% and each is answered to its sender
    start(Name, Cookie),
    C = list_to_atom(CNode),
    N = list_to_integer(NStr),
    M = list_to_integer(MStr),
    true = net_kernel:connect_node(C),
    {echo, C} ! {17, <<N:32, M:32>>},
    There = receive {swarm, L} -> list_to_tuple(L)
            after 60000 -> exit(no_swarm) end,
    Self = self(),
    Ws = [spawn(fun() -> swarm_worker(Self, C, There, M, I) end)
          || I <- lists:seq(1, N)],
    %% theirs know ours (by our hellos) and wait for the word too
    receive {26, <<"go">>} -> ok after 60000 -> exit(no_go) end,
    [W ! go || W <- Ws],
    Got = [receive {done, W, K} -> K after 120000 -> timeout end || W <- Ws],
    Short = length([K || K <- Got, K =/= M]),
    {TheirShort, TheirGot} = receive {25, <<S:32, A:32>>} -> {S, A}
                             after 120000 -> {timeout, 0} end,
    io:format("swarm ~p here, ~p there, ~p messages each way, "
              "~p short here, ~p short there, ~p answered there~n",
              [N, tuple_size(There), N * M, Short, TheirShort, TheirGot]),
    halt();
main(["tester", Name, Cookie, Tick]) ->
    start(Name, Cookie, Tick),
    register(tester, self()),
    io:format("ready ~s~n", [os:getpid()]),
    loop();
main(["watch", Name, Cookie, CNode, Tick]) ->
    start(Name, Cookie, Tick),
    C = list_to_atom(CNode),
    true = net_kernel:connect_node(C),
    process_flag(trap_exit, true),
    V = victim(C),
    link(V),
    Ref = monitor(process, V),
    ping(V),
    monitor_node(C, true),
    io:format("up~n"),
    receive {nodedown, C} -> io:format("nodedown~n") end,
    receive {'EXIT', V, X} -> io:format("exit ~p~n", [X])
    after 20000 -> io:format("no exit~n") end,
    receive {'DOWN', Ref, process, V, Y} -> io:format("down ~p~n", [Y])
    after 20000 -> io:format("no down~n") end,
    halt();
main(["linked", Name, Cookie, CNode, Tick]) ->
    %% a process linked to and monitored by a watcher there, then waits
    start(Name, Cookie, Tick),
    C = list_to_atom(CNode),
    true = net_kernel:connect_node(C),
    {echo, C} ! {13, <<"link", (atom_to_binary(node()))/binary>>},
    receive {14, <<"linked">>} -> io:format("linked ~s~n", [os:getpid()])
    after 20000 -> io:format("not linked~n") end,
    receive never -> ok end;
main(["connect", Name, Cookie, CNode]) ->
    start(Name, Cookie),
    io:format("connect=~p~n", [net_kernel:connect_node(list_to_atom(CNode))]),
    halt().

start(Name, Cookie) ->
    %% the actors nodes of the test run with net_ticktime 20 too: nodes
    %% of one cluster must agree on it
    start(Name, Cookie, "20").

start(Name, Cookie, Tick) ->
    {ok, _} = net_kernel:start(list_to_atom(Name),
                               #{name_domain => shortnames,
                                 net_ticktime => list_to_integer(Tick)}),
    erlang:set_cookie(node(), list_to_atom(Cookie)).

loop() ->
    receive M -> io:format("got ~p~n", [M]), loop() end.

%% the answers {8, <<N:32>>} come for N = Next..Last, in that order
in_order(Next, Last) when Next > Last ->
    io:format("ok ~p messages there and back in the order sent~n", [Last]),
    ok;
in_order(Next, Last) ->
    receive
        {8, <<Next:32>>} -> in_order(Next + 1, Last);
        {8, <<N:32>>} ->
            io:format("FAIL message ~p came where ~p was due~n", [N, Next]),
            fail
    after 20000 ->
        io:format("FAIL message ~p did not come~n", [Next]), fail
    end.

victim(C) ->
    {echo, C} ! {10, <<"spawn">>},
    receive {pid, P} -> P after 20000 -> exit(no_victim) end.

%% a round trip to the victim: what was sent before it is there
ping(V) ->
    V ! {12, <<"ping">>},
    receive {12, <<"pong">>} -> ok after 20000 -> exit(no_pong) end.

c_exit(C, Code, Expect) ->
    V = victim(C),
    link(V),
    Ref = monitor(process, V),
    ping(V),
    case Code of
        kill -> V ! {11, <<"kill">>};
        _ -> V ! {11, <<Code:64/signed>>}
    end,
    E = receive {'EXIT', V, X} -> X after 20000 -> timeout end,
    D = receive {'DOWN', Ref, process, V, Y} -> Y after 20000 -> timeout end,
    case {E, D} of
        {Expect, Expect} ->
            io:format("ok their exit ~p: our EXIT and DOWN~n", [Expect]), ok;
        _ ->
            io:format("FAIL their exit ~p: EXIT ~p DOWN ~p~n", [Expect, E, D]),
            fail
    end.

e_exit(C, Why, Expect) ->
    Self = self(),
    Node = atom_to_binary(node()),
    P = spawn(fun() ->
                      {echo, C} ! {13, <<"link", Node/binary>>},
                      receive {14, <<"linked">>} -> Self ! {ready, self()} end,
                      receive go -> exit(Why) end
              end),
    receive {ready, P} -> ok after 20000 -> exit(no_watcher) end,
    P ! go,
    Got = lists:sort([receive {15, B} -> B after 20000 -> timeout end
                      || _ <- [1, 2]]),
    Want = lists:sort([list_to_binary(["exit ", Expect]),
                       list_to_binary(["down ", Expect])]),
    case Got of
        Want ->
            io:format("ok our exit ~p: their EXIT and DOWN ~s~n",
                      [Why, Expect]), ok;
        _ ->
            io:format("FAIL our exit ~p: ~p~n", [Why, Got]), fail
    end.

dead_link(C) ->
    V = victim(C),
    Ref = monitor(process, V),
    V ! {11, <<0:64>>},
    receive {'DOWN', Ref, process, V, normal} -> ok
    after 20000 -> io:format("FAIL no DOWN (normal) of the victim~n")
    end,
    link(V),
    receive
        {'EXIT', V, noproc} -> io:format("ok a link to a dead one: noproc~n"), ok
    after 20000 -> io:format("FAIL a link to a dead one: nothing~n"), fail
    end.

unlinked(C) ->
    V = victim(C),
    link(V),
    ping(V),
    unlink(V),
    ping(V),
    Ref = monitor(process, V),
    V ! {11, <<9:64>>},
    %% an EXIT would come before the DOWN: links are signalled first
    receive {'DOWN', Ref, process, V, _} -> ok after 20000 -> ok end,
    receive
        {'EXIT', V, R} -> io:format("FAIL an unlinked exit came: ~p~n", [R]), fail
    after 0 -> io:format("ok unlinked: no exit~n"), ok
    end.

%% a monitor by name of a process registered there ({Name, Node} in the
%% DOWN), its exit 42; a monitor of a name no process has there: noproc
by_name(C) ->
    V = victim(C),
    V ! {16, <<"register">>},
    receive {16, <<"ok">>} -> ok after 20000 -> exit(no_register) end,
    Ref = monitor(process, {victim, C}),
    V ! {11, <<42:64>>},
    D = receive {'DOWN', Ref, process, W, X} -> {W, X}
        after 20000 -> timeout end,
    Ref2 = monitor(process, {nosuch, C}),
    N = receive {'DOWN', Ref2, process, W2, Y} -> {W2, Y}
        after 20000 -> timeout end,
    case {D, N} of
        {{{victim, C}, 42}, {{nosuch, C}, noproc}} ->
            io:format("ok monitors by name: DOWN 42 of ours, noproc of "
                      "none~n"), ok;
        _ ->
            io:format("FAIL monitors by name: ~p, ~p~n", [D, N]), fail
    end.

many_monitors(C, N) ->
    V = victim(C),
    Refs = [monitor(process, V) || _ <- lists:seq(1, N)],
    {Gone, Kept} = lists:partition(fun(R) -> erlang:phash2(R, 2) =:= 0 end,
                                   Refs),
    [demonitor(R) || R <- Gone],
    V ! {11, <<5:64>>},
    Downs = [receive {'DOWN', R, process, V, Why} -> Why
             after 20000 -> timeout end || R <- Kept],
    GoneSet = sets:from_list(Gone),
    Extra = receive
                {'DOWN', R, process, V, _} ->
                    sets:is_element(R, GoneSet)
            after 100 -> false
            end,
    case {lists:usort(Downs), Extra} of
        {[5], false} ->
            io:format("ok ~p monitors of one of ours, ~p taken back: ~p "
                      "DOWNs (5), none for those taken back~n",
                      [N, length(Gone), length(Kept)]), ok;
        _ ->
            io:format("FAIL ~p monitors, ~p taken back: DOWNs ~p, one of "
                      "those taken back: ~p~n",
                      [N, length(Gone), lists:usort(Downs), Extra]), fail
    end.

%% worker I: says hello to the swarm there ({22, <<I:32>>}: the pid of
%% the sender is how the other side knows it), sends its M on the word,
%% then answers theirs ({21, Pid, Bin}: Pid ! {21, Bin}) while it counts
%% the answers to its own
swarm_worker(Parent, C, There, M, I) ->
    rand:seed(exsss, {I, I * 7, I * 13}),
    {swarm, C} ! {22, <<I:32>>},
    receive go -> ok end,
    [element(rand:uniform(tuple_size(There)), There) ! {18, <<I:32, S:32>>}
     || S <- lists:seq(1, M)],
    swarm_serve(Parent, I, M, 0).

swarm_serve(Parent, _, M, M) ->
    Parent ! {done, self(), M},
    swarm_answer();
swarm_serve(Parent, I, M, K) ->
    receive
        {18, <<I:32, _:32>>} -> swarm_serve(Parent, I, M, K + 1);
        {21, P, B} -> P ! {21, B}, swarm_serve(Parent, I, M, K)
    after 60000 -> Parent ! {done, self(), K}, swarm_answer()
    end.

swarm_answer() ->
    receive {21, P, B} -> P ! {21, B}, swarm_answer() end.

check(T, Via) ->
    Via ! T,
    receive
        T -> ok
    after 20000 ->
        io:format("FAIL ~P via ~p~n", [T, 8, Via]),
        fail
    end.

%% Every type of the external term format; the user form {Tag, Binary}
%% (Tag 0..ACT_TAG_RESERVED) comes back through act_send, the rest
%% through act_send_term.
terms() ->
    [0, 42, 255, 256, -1, 16#7fffffff, -16#80000000, 1 bsl 40, 1 bsl 100,
     -(1 bsl 100), 1 bsl 2100,
     3.14, -0.0, 1.0e300,
     abc, '', list_to_atom([$h, 233, $l, $l, $o]),
     list_to_atom([16#3b1, 16#3c4, 16#3bf, 16#3bc, 16#3bf]),
     list_to_atom(lists:duplicate(255, $a)),
     <<>>, <<1, 2, 3>>, <<1:3>>, <<255, 7:5>>,
     binary:copy(<<1>>, 1 bsl 20),
     [], "a string", lists:seq(1, 300), [1, a, <<"b">>], [a | b],
     [1, 2 | <<3>>],
     {}, {a}, {a, b, c}, list_to_tuple(lists:seq(1, 300)),
     #{}, #{a => 1, <<"b">> => [2], {c} => #{d => e}},
     maps:from_list([{N, N} || N <- lists:seq(1, 100)]),
     self(), make_ref(), fun() -> ok end, fun lists:reverse/1,
     {7, <<"user form">>}, {0, <<>>}, {4294967039, <<"largest tag">>},
     {4294967040, <<"a reserved tag: a term">>}, {-1, <<"negative">>},
     {7, <<1:3>>}, {7, <<"x">>, extra}].

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
%%       connects, prints "up", then "nodedown" when the node goes
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
    Big = {9, binary:copy(<<"0123456789abcdef">>, 4 bsl 20)},
    Pid ! Big,
    R3 = receive
             Big -> io:format("ok a 64 MiB binary there and back~n"), ok
         after 120000 -> io:format("FAIL no 64 MiB binary back~n"), fail
         end,
    All = [R2, R3 | R],
    io:format("done ~p ~p~n", [length([x || ok <- All]),
                                length([x || fail <- All])]),
    halt();
main(["tester", Name, Cookie, Tick]) ->
    ok = application:set_env(kernel, net_ticktime, list_to_integer(Tick)),
    start(Name, Cookie),
    register(tester, self()),
    io:format("ready ~s~n", [os:getpid()]),
    loop();
main(["watch", Name, Cookie, CNode, Tick]) ->
    ok = application:set_env(kernel, net_ticktime, list_to_integer(Tick)),
    start(Name, Cookie),
    C = list_to_atom(CNode),
    true = net_kernel:connect_node(C),
    monitor_node(C, true),
    io:format("up~n"),
    receive {nodedown, C} -> io:format("nodedown~n") end,
    halt();
main(["connect", Name, Cookie, CNode]) ->
    start(Name, Cookie),
    io:format("connect=~p~n", [net_kernel:connect_node(list_to_atom(CNode))]),
    halt().

start(Name, Cookie) ->
    {ok, _} = net_kernel:start([list_to_atom(Name), shortnames]),
    erlang:set_cookie(node(), list_to_atom(Cookie)).

loop() ->
    receive M -> io:format("got ~p~n", [M]), loop() end.

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

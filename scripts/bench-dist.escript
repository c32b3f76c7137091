%% SPDX-License-Identifier: MIT
%% The Erlang nodes of scripts/bench-dist.sh.
%%
%%   bench-dist.escript server SNAME COOKIE
%%       an Erlang server: registers "bench", which opens an echo
%%       process per client ({open, ClientPid}: the echo sends the
%%       client {pid, EchoPid}, then answers each {1, Binary} with the
%%       same message, until a message of tag 3); prints "ready OSPID"
%%   bench-dist.escript client SNAME COOKIE ROUNDS CLK_TCK WORKLOADS
%%           TARGET...
%%       the load: for each round, each workload, each target in turn
%%       (so that the targets alternate within a round), runs the
%%       workload against the target's "bench" and prints
%%         run WORKLOAD ROUND LABEL NS TRIPS BYTES SERVER_TICKS
%%             CLIENT_TICKS
%%       NS the wall time of the round trips, TRIPS their count, BYTES
%%       the payload bytes both ways, the TICKS the server's and this
%%       node's utime+stime over them (from /proc/OSPID/stat, CLK_TCK
%%       a second). WORKLOADS is "NAME:CLIENTS:SIZE:TRIPS,..." (TRIPS
%%       per client: each client process does that many round trips of
%%       a SIZE-byte binary one after another); a TARGET is
%%       "LABEL=NODE=OSPID", or "floor=PROGRAM=PORT": the same round
%%       trips with no node at all, PROGRAM (bench/peers/dist_floor)
%%       run as "PROGRAM load PORT CLIENTS FRAME TRIPS" against its
%%       server on PORT, FRAME being SIZE plus what the frame of a
%%       {1, Binary} from this node to the actors server takes beside
%%       the binary (frame_extra/0); its SERVER_TICKS are the floor
%%       server's CPU (from its getrusage, with a fraction), its
%%       CLIENT_TICKS 0. At the end a
%%       target labelled actors gets {4, <<>>} (it stops on it), and
%%       the client waits for its nodedown.
-mode(compile).

main(["server", Name, Cookie]) ->
    start(Name, Cookie),
    register(bench, self()),
    io:format("ready ~s~n", [os:getpid()]),
    serve();
main(["client", Name, Cookie, Rounds, Tck, Workloads | Targets]) ->
    start(Name, Cookie),
    Ws = [workload(W) || W <- string:lexemes(Workloads, ",")],
    Ts = [target(T) || T <- Targets],
    [true = net_kernel:connect_node(N) || {L, N, _} <- Ts, L =/= "floor"],
    Hz = list_to_integer(Tck),
    [[[run(W, R, T, Hz) || T <- Ts] || W <- Ws]
     || R <- lists:seq(1, list_to_integer(Rounds))],
    %% the end, for an actors server: it stops and prints its figures
    %% (waited for: a halt could drop the message)
    [begin
         monitor_node(N, true),
         {bench, N} ! {4, <<>>},
         receive {nodedown, N} -> ok after 10000 -> ok end
     end || {"actors", N, _} <- Ts],
    halt().

start(Name, Cookie) ->
    {ok, _} = net_kernel:start(list_to_atom(Name),
                               #{name_domain => shortnames,
                                 net_ticktime => 20}),
    erlang:set_cookie(node(), list_to_atom(Cookie)).

serve() ->
    receive
        {open, C} -> spawn(fun() -> C ! {pid, self()}, echo(C) end);
        _ -> ok
    end,
    serve().

echo(C) ->
    receive
        {1, _} = M -> C ! M, echo(C);
        {3, _} -> ok
    end.

workload(S) ->
    [N, C, Z, T] = string:lexemes(S, ":"),
    {N, list_to_integer(C), list_to_integer(Z), list_to_integer(T)}.

target(S) ->
    case string:lexemes(S, "=") of
        ["floor", Prog, Port] -> {"floor", Prog, Port};
        [L, N, P] -> {L, list_to_atom(N), P}
    end.

%% the bytes of a {1, Binary} frame beside the binary's, from this node
%% to the actors server: 76, and the host's name twice (the node names
%% of the two pids in its control message; the actors server counts
%% 112 bytes a frame for 32-byte binaries on host "vm")
frame_extra() ->
    [_, Host] = string:split(atom_to_list(node()), "@"),
    76 + 2 * length(Host).

%% utime + stime of an OS process, in clock ticks
ticks(OsPid) ->
    {ok, B} = file:read_file(["/proc/", OsPid, "/stat"]),
    [_, After] = string:split(B, ")", trailing),
    F = string:lexemes(After, " "),
    binary_to_integer(lists:nth(12, F)) + binary_to_integer(lists:nth(13, F)).

run({WName, K, Size, N}, Round, {"floor", Prog, Port}, Hz) ->
    Cmd = lists:flatten(io_lib:format("'~s' load ~s ~p ~p ~p",
                                      [Prog, Port, K, Size + frame_extra(),
                                       N])),
    Out = os:cmd(Cmd),
    case io_lib:fread("floor ~d ~d ~d", Out) of
        {ok, [Ns, Trips, ServerNs], _} ->
            io:format("run ~s ~p floor ~p ~p ~p ~.4f 0~n",
                      [WName, Round, Ns, Trips, 2 * Trips * Size,
                       ServerNs * Hz / 1.0e9]);
        _ ->
            io:format(standard_error, "the floor failed: ~s: ~s~n",
                      [Cmd, Out]),
            halt(1)
    end;
run({WName, K, Size, N}, Round, {Label, Node, OsPid}, _Hz) ->
    Self = self(),
    Bin = binary:copy(<<"x">>, Size),
    Cs = [spawn_link(fun() -> client(Node, Bin, N, Self) end)
          || _ <- lists:seq(1, K)],
    [receive {ready, C} -> ok end || C <- Cs],
    Own = os:getpid(),
    S0 = ticks(OsPid),
    C0 = ticks(Own),
    T0 = erlang:monotonic_time(nanosecond),
    [C ! go || C <- Cs],
    [receive {done, C} -> ok end || C <- Cs],
    T1 = erlang:monotonic_time(nanosecond),
    S1 = ticks(OsPid),
    C1 = ticks(Own),
    io:format("run ~s ~p ~s ~p ~p ~p ~p ~p~n",
              [WName, Round, Label, T1 - T0, K * N, 2 * K * N * Size,
               S1 - S0, C1 - C0]).

client(Node, Bin, N, Parent) ->
    {bench, Node} ! {open, self()},
    E = receive {pid, P} -> P after 30000 -> exit(no_echo) end,
    Parent ! {ready, self()},
    receive go -> ok end,
    trips(E, {1, Bin}, N),
    E ! {3, <<>>},
    Parent ! {done, self()}.

trips(_, _, 0) -> ok;
trips(E, M, N) ->
    E ! M,
    receive {1, _} -> trips(E, M, N - 1) end.

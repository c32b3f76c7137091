%% SPDX-License-Identifier: MIT
%%
%% sup-diff.erl - the OTP side of tests/sup-diff.sh: reads a script of
%% supervisor operations on standard input, runs them against OTP's own
%% supervisor, and prints what each gave and the supervisor's state
%% after it, in the form tests/sup_diff.c prints for act_sup_*. Run as
%% an escript (erlang-base): escript tests/sup-diff.erl < script.
%%
%% The script's lines (tests/sup-diff.py writes them):
%%   session STRATEGY INTENSITY   stop any supervisor, forget the counts
%%   child ID RESTART SHUTDOWN    a child of the next start's spec
%%   start                        start the supervisor (linked)
%%   failnext ID N, ignorenext ID N
%%                                the next N starts of ID fail / ignore
%%   exit ID REASON               ID's process exits: normal, shutdown,
%%                                crash, or is killed (kill)
%%   add ID RESTART SHUTDOWN      start_child
%%   term ID, restart ID, delete ID
%%   stop                         stop the supervisor (gen_server:stop)
%% SHUTDOWN is brutal, inf or milliseconds; the period is an hour, so
%% the intensity alone decides, and nothing here depends on time.
-module('sup-diff').
-mode(compile).
-export([main/1, init/1, start_child/1, child_loop/0]).

main(_) ->
    %% the supervisor's reports would go to standard output
    logger:set_primary_config(level, none),
    process_flag(trap_exit, true),
    ets:new(ctl, [named_table, public, set]),
    loop(#{sup => undefined, strat => one_for_one, int => 1, kids => []}).

loop(St) ->
    case io:get_line("") of
        eof -> halt(0);
        Line0 ->
            Line = string:trim(Line0),
            {Res, St1} = op(string:split(Line, " ", all), St),
            io:format("~s => ~s~n", [Line, Res]),
            io:format("  ~s~n", [state(St1)]),
            loop(St1)
    end.

%% ---- the children -------------------------------------------------

init({Strat, Int, Kids}) ->
    {ok, {#{strategy => Strat, intensity => Int, period => 3600}, Kids}}.

spec(Id, Restart, Shutdown) ->
    #{id => Id, start => {?MODULE, start_child, [Id]},
      restart => list_to_atom(Restart), shutdown => shutdown(Shutdown),
      type => worker}.

shutdown("brutal") -> brutal_kill;
shutdown("inf") -> infinity;
shutdown(Ms) -> list_to_integer(Ms).

start_child(Id) ->
    ets:update_counter(ctl, {starts, Id}, 1, {{starts, Id}, 0}),
    case take(fail, Id) of
        true -> {error, failed};
        false ->
            case take(ignore, Id) of
                true -> ignore;
                false ->
                    Pid = spawn_link(?MODULE, child_loop, []),
                    ets:insert(ctl, {{pid, Id, Pid}}),
                    {ok, Pid}
            end
    end.

take(What, Id) ->
    case ets:lookup(ctl, {What, Id}) of
        [{_, N}] when N > 0 -> ets:insert(ctl, {{What, Id}, N - 1}), true;
        _ -> false
    end.

child_loop() ->
    receive
        {exit, R} -> exit(R);
        _ -> child_loop()
    end.

%% ---- the operations -----------------------------------------------

alive(#{sup := undefined}) -> false;
alive(#{sup := Sup}) -> is_process_alive(Sup).

op(["session", S, I], St) ->
    stop_sup(St),
    ets:delete_all_objects(ctl),
    {"ok", St#{sup := undefined, strat := list_to_atom(S),
               int := list_to_integer(I), kids := []}};
op(["child", Id, R, Sh], St = #{kids := K}) ->
    {"ok", St#{kids := K ++ [spec(Id, R, Sh)]}};
op(["start"], St = #{strat := S, int := I, kids := K}) ->
    case alive(St) of
        true -> {"alive", St};
        false ->
            case supervisor:start_link(?MODULE, {S, I, K}) of
                {ok, Pid} -> {"ok", St#{sup := Pid}};
                _ -> flush_exits(), {"error", St#{sup := undefined}}
            end
    end;
op(["failnext", Id, N], St) ->
    ets:insert(ctl, {{fail, Id}, list_to_integer(N)}), {"ok", St};
op(["ignorenext", Id, N], St) ->
    ets:insert(ctl, {{ignore, Id}, list_to_integer(N)}), {"ok", St};
op(Op, St) ->
    case alive(St) of
        false -> {"nosup", St};
        true -> {sup_op(Op, maps:get(sup, St)), St}
    end.

sup_op(["exit", Id, Reason], Sup) ->
    case lists:keyfind(Id, 1, which(Sup)) of
        {_, Pid, _, _} when is_pid(Pid) -> exit_kid(Sup, Pid, Reason);
        _ -> "notrunning"
    end;
sup_op(["add", Id, R, Sh], Sup) ->
    case supervisor:start_child(Sup, spec(Id, R, Sh)) of
        {ok, undefined} -> "ignore";
        {ok, _} -> "ok";
        {error, {already_started, _}} -> "eexist";
        {error, already_present} -> "ealready";
        {error, _} -> "error"
    end;
sup_op(["term", Id], Sup) ->
    err(supervisor:terminate_child(Sup, Id));
sup_op(["restart", Id], Sup) ->
    case supervisor:restart_child(Sup, Id) of
        {ok, undefined} -> "ignore";
        {ok, _} -> "ok";
        E -> err(E)
    end;
sup_op(["delete", Id], Sup) ->
    err(supervisor:delete_child(Sup, Id));
sup_op(["stop"], Sup) ->
    gen_server:stop(Sup),
    flush_exits(),
    "ok".

exit_kid(Sup, Pid, Reason) ->
    Ref = monitor(process, Pid),
    signal(Pid, Reason),
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    wait_gone(Sup, Pid),
    "ok".

signal(Pid, "kill") -> exit(Pid, kill);
signal(Pid, "crash") -> Pid ! {exit, crash};
signal(Pid, R) -> Pid ! {exit, list_to_atom(R)}.

err(ok) -> "ok";
err({error, not_found}) -> "enoent";
err({error, running}) -> "ebusy";
err({error, restarting}) -> "eagain";
err({error, _}) -> "error".

stop_sup(St) ->
    case alive(St) of
        true -> gen_server:stop(maps:get(sup, St));
        false -> ok
    end,
    flush_exits().

flush_exits() ->
    receive {'EXIT', _, _} -> flush_exits() after 0 -> ok end.

%% which_children in start order (OTP lists the newest first), once no
%% failed restart is still to be tried again; [] once it is gone.
which(Sup) ->
    case catch supervisor:which_children(Sup) of
        L when is_list(L) ->
            case lists:keymember(restarting, 2, L) of
                true -> which(Sup);
                false -> lists:reverse(L)
            end;
        _ -> []
    end.

%% Until the supervisor has acted on Pid's exit: Pid is not its child.
wait_gone(Sup, Pid) ->
    case catch supervisor:which_children(Sup) of
        L when is_list(L) ->
            case lists:keymember(Pid, 2, L) of
                true -> timer:sleep(1), wait_gone(Sup, Pid);
                false -> ok
            end;
        _ -> ok
    end.

%% ---- the state after an operation ------------------------------------

state(St) ->
    Up = alive(St),
    Sup = maps:get(sup, St),
    Kids = case Up of true -> which(Sup); false -> [] end,
    Up2 = Up andalso is_process_alive(Sup),
    flush_exits(),
    Children = [io_lib:format("~s:~s:~b", [I, kid_state(P), starts(I)])
                || {I, P, _, _} <- Kids],
    Count = case Up2 of
                true ->
                    C = supervisor:count_children(Sup),
                    io_lib:format("~b/~b/~b/~b",
                                  [proplists:get_value(K, C)
                                   || K <- [specs, active, supervisors,
                                            workers]]);
                false -> "-"
            end,
    Alive = lists:sort([I || {{pid, I, P}} <- ets:tab2list(ctl),
                             is_process_alive(P)]),
    io_lib:format("sup=~s children=[~s] count=~s alive=[~s]",
                  [case Up2 of true -> "up"; false -> "down" end,
                   lists:join(" ", Children), Count,
                   lists:join(" ", Alive)]).

kid_state(P) when is_pid(P) -> "R";
kid_state(undefined) -> "S";
kid_state(restarting) -> "X".

starts(Id) ->
    case ets:lookup(ctl, {starts, Id}) of
        [{_, N}] -> N;
        [] -> 0
    end.

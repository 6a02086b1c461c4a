package dev.ratelimit.web.reactive;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import reactor.netty.Connection;

import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * The event loop of the connection a request came on, on Reactor Netty: where a filter continues a request after
 * its store call completed elsewhere (on the store client's I/O thread). Continuing there matters: a request that went
 * on on another thread sometimes left its keep-alive connection stuck (decision 78).
 */
public final class ConnectionEventLoop {

	private static final boolean REACTOR_NETTY_PRESENT = ClassUtils.isPresent("reactor.netty.Connection",
			ConnectionEventLoop.class.getClassLoader());

	private ConnectionEventLoop() {
	}

	/**
	 * Returns the event loop of the request's connection.
	 * @param exchange the exchange
	 * @return its event loop, or {@code null} on another server
	 */
	static @Nullable Executor of(ServerWebExchange exchange) {
		return REACTOR_NETTY_PRESENT ? Netty.eventLoop(exchange) : null;
	}

	/**
	 * Returns a future that completes as {@code future} does, on the event loop of the exchange's connection (as
	 * {@code future} itself on another server).
	 * @param exchange the exchange
	 * @param future a future that completes on another thread, e.g. a verdict
	 * @param <T> the result type
	 * @return the future to continue the request from
	 */
	public static <T> CompletableFuture<T> continueOn(ServerWebExchange exchange, CompletableFuture<T> future) {
		Executor connection = of(exchange);
		return (connection != null) ? future.whenCompleteAsync((value, ex) -> {
		}, connection) : future;
	}

	/** Reads Reactor Netty's connection; loaded only when Reactor Netty is present. */
	private static final class Netty {

		static @Nullable Executor eventLoop(ServerWebExchange exchange) {
			Object request = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
			return (request instanceof Connection connection) ? connection.channel().eventLoop() : null;
		}

	}

}
